"""What the interop helpers share, one module per concept:

- encoding: base64url without padding, and the PKCE S256 challenge built on it;
- forms: the one reader of an HTML page's forms (and its title and error notes);
- django_settings: the settings.py text every Django provider project starts from.

How the scripts find this package (one way, for every script): its parent directory,
scripts/interop, must be on sys.path. Nothing sets PYTHONPATH; every script is started by path
(`python .../scripts/interop/x.py` from the .sh wrappers, captures.py, mitm_interop.py,
whatever the current directory), and Python puts the started script's own directory on
sys.path. So:

- the scripts in scripts/interop/ have it already, and so does mitm_tamper_state.py, which
  mitmdump loads with `-s` (mitmproxy puts an addon's directory on sys.path while loading it);
- the scripts in scripts/interop/providers/ append their parent directory before importing:
      sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common
  (appended, not prepended, so that nothing in scripts/interop shadows what they import);
- the Django projects the providers write never import it: django_settings builds the text
  of their settings.py at setup, so the project's manage.py and the settings machinery
  (DJANGO_SETTINGS_MODULE) need nothing but the project directory.
"""
