"""The django-oauth-toolkit provider of django_oidc.py, set up to treat a reused refresh token
as a replay: the issuer side of field bug 1 (a refresh rotation race).

Usage:
  django_oidc_reuse.py setup DIR            django_oidc.py's project, users and applications,
                                            plus the settings below; idempotent.
  django_oidc_reuse.py serve DIR PORTFILE   as django_oidc.py serve.

Why each setting (django-oauth-toolkit 3.x, oauth2_validators.py):

- REFRESH_TOKEN_REUSE_PROTECTION: a rotated-out refresh token presented again is a replay,
  and DOT revokes every refresh token of its family, the one the winning refresh just issued
  included. That is what the issuers of field bug 1 do; without it DOT only refuses the
  duplicate (invalid_grant) and the winner's new token goes on working.
- REFRESH_TOKEN_GRACE_PERIOD_SECONDS 0 (DOT's default, written out because the race depends
  on it): within a grace period DOT would hand the duplicate the winner's new tokens instead.
- One refresh at a time (the OneRefreshAtATime middleware): DOT reads the refresh token
  before it takes the row lock, so a duplicate read before the winner's rotation has
  committed is treated as that same rotation and answered 200 with the winner's tokens (on
  PostgreSQL it waits on SELECT FOR UPDATE; this project's SQLite has no row locks and can
  collide instead, 500 "database is locked"). Serving the refresh grant one request at a time,
  as a single-worker deployment does, makes the outcome of two overlapping refreshes fixed:
  the first to arrive wins and is answered first, the second is the replay. The requests
  still overlap on the wire, so the capture shows a race. Each refresh answer is also held
  for HOLD_SECONDS (a slow mobile link) so that the duplicate surely leaves the client before
  the winner's answer is back.

Loopback-only test scaffolding, like django_oidc.py.
"""
import sys

import django_oidc

HOLD_SECONDS = 0.3

# The end of django_oidc.py's settings.py (its setup's extra_settings, which go through
# str.format: braces are doubled).
SETTINGS = '''
# Added by scripts/interop/providers/django_oidc_reuse.py (see its docstring).
OAUTH2_PROVIDER.update({{
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
}})
MIDDLEWARE = MIDDLEWARE + ["{package}.refresh_queue.OneRefreshAtATime"]
'''

MIDDLEWARE = '''\
"""Written by scripts/interop/providers/django_oidc_reuse.py: why is in its docstring."""
import threading
import time
import urllib.parse

HOLD_SECONDS = {hold}
_one_at_a_time = threading.Lock()


class OneRefreshAtATime:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method != "POST" or not request.path.endswith("/token/"):
            return self.get_response(request)
        # request.body (not request.POST) so that the view can still read the body.
        form = urllib.parse.parse_qs(request.body.decode("utf-8", "replace"))
        if form.get("grant_type") != ["refresh_token"]:
            return self.get_response(request)
        with _one_at_a_time:
            response = self.get_response(request)
            time.sleep(HOLD_SECONDS)
        return response
'''


def setup(directory):
    django_oidc.setup(directory, extra_settings=SETTINGS)
    django_oidc.write(
        directory / django_oidc.PACKAGE / "refresh_queue.py", MIDDLEWARE.format(hold=HOLD_SECONDS))


if __name__ == "__main__":
    sys.exit(django_oidc.main(sys.argv[1:], setup=setup, usage=__doc__))
