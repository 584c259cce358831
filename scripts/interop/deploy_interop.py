"""Checks deploy/ with software nobody here wrote, and runs the commands it holds.

Usage: deploy_interop.py PATH-TO-signinsim PATH-TO-repository
The GitHub Actions workflow is validated with check-jsonschema's bundled schema of workflows
(and its rule that every job has a timeout); the Kubernetes manifests with kubernetes-validate
--strict against the Kubernetes API schemas it bundles. A mutated copy of each must fail, so a
validator that accepts anything is caught. Then the shard and merge commands of both are run
as their engines would run them (the matrix's values, JOB_COMPLETION_INDEX 0..N-1), with the
signinsim binary on a small scenario folder, and the merged report must equal an unsharded
run's. Prints one line per check and "N passed, N failed"; exits 1 on any failure.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

from interop_checks import check, finish

BINARY, ROOT = sys.argv[1], sys.argv[2]
DEPLOY = os.path.join(ROOT, "deploy")
WORKFLOW = os.path.join(DEPLOY, "github-actions", "signinsim.yml")
MANIFESTS = sorted(glob.glob(os.path.join(DEPLOY, "kubernetes", "*.yaml")))
LIBRARY = os.path.join(ROOT, "scenarios", "web-session")
WORK = tempfile.mkdtemp(prefix="signinsim-deploy-")
BIN = os.path.dirname(sys.executable)


def tool(name, *arguments):
    return subprocess.run([os.path.join(BIN, name), *arguments], capture_output=True, text=True)


def mutated(path, old, new):
    """A copy of `path` with one change, in the work folder."""
    with open(path) as file:
        text = file.read()
    copy = os.path.join(WORK, "mutated-" + os.path.basename(path))
    with open(copy, "w") as file:
        file.write(text.replace(old, new, 1))
    return copy


def check_merged(engine, merged, folder, whole):
    """The merged JSON report equals the unsharded run's, and its HTML draws every scenario."""
    report = os.path.join(folder, "report.json")
    check(f"the {engine} joins the shards into the report of one unsharded run",
          merged.returncode == 0 and os.path.exists(report) and statuses(report) == statuses(whole),
          merged.stdout + merged.stderr)
    html = os.path.join(folder, "report.html")
    diagrams = open(html).read().count('<svg id="diagram-') if os.path.exists(html) else 0
    check(f"the {engine}'s HTML report draws every scenario from the shards' HAR files",
          diagrams == len(statuses(whole)) and "no HAR" not in merged.stderr, (diagrams, merged.stderr[-500:]))


def statuses(path):
    with open(path) as file:
        report = json.load(file)
    return [(s["file"], s["name"], s["status"]) for s in report["scenarios"]]


# -- validation by the published schemas

for schema in ["vendor.github-workflows", "custom.github-workflows-require-timeout"]:
    result = tool("check-jsonschema", "--builtin-schema", schema, WORKFLOW)
    check(f"check-jsonschema {schema} accepts the workflow", result.returncode == 0, result.stdout + result.stderr)
broken = mutated(WORKFLOW, "runs-on: ubuntu-latest", "runs_on: ubuntu-latest")
result = tool("check-jsonschema", "--builtin-schema", "vendor.github-workflows", broken)
check("check-jsonschema refuses the workflow with a misspelt key", result.returncode != 0, result.stdout)
untimed = mutated(WORKFLOW, "    timeout-minutes: 30\n", "")
result = tool("check-jsonschema", "--builtin-schema", "custom.github-workflows-require-timeout", untimed)
check("check-jsonschema refuses a job without a timeout", result.returncode != 0, result.stdout)

check("deploy/kubernetes holds manifests", len(MANIFESTS) >= 2, MANIFESTS)
for version in [None, "1.29"]:
    arguments = ["--strict", "--quiet"] + (["-k", version] if version else []) + MANIFESTS
    result = tool("kubernetes-validate", *arguments)
    label = f"Kubernetes {version}" if version else "the newest Kubernetes it knows"
    check(f"kubernetes-validate --strict accepts every manifest for {label}", result.returncode == 0,
          result.stdout + result.stderr)
shards_manifest = os.path.join(DEPLOY, "kubernetes", "shards-job.yaml")
broken = mutated(shards_manifest, "  parallelism:", "  paralelism:")
result = tool("kubernetes-validate", "--strict", "--quiet", broken)
check("kubernetes-validate refuses a Job with a misspelt field", result.returncode != 0, result.stdout)

# -- the Kubernetes Indexed Job, run as Kubernetes would run it

with open(shards_manifest) as file:
    job = yaml.safe_load(file)
spec = job["spec"]
container = spec["template"]["spec"]["containers"][0]
script = container["args"][0]
split = re.search(r'--shard-split "\$shard/(\d+)"', script)
count = int(split.group(1)) if split else 0
check("the Job is Indexed, with as many completions and pods as shards",
      spec.get("completionMode") == "Indexed" and spec.get("completions") == count == spec.get("parallelism"),
      f"completions {spec.get('completions')}, parallelism {spec.get('parallelism')}, shards {count}")


def local(command, reports):
    """The container's command with the image's paths mapped onto this machine."""
    return (command.replace("/signinsim/scenarios", LIBRARY).replace("/reports", reports)
            .replace("signinsim ", BINARY + " ", 1))


reports = os.path.join(WORK, "k8s")
os.makedirs(reports)
codes = []
for index in range(count):
    environment = dict(os.environ, JOB_COMPLETION_INDEX=str(index))
    codes.append(subprocess.run(["/bin/sh", "-c", local(script, reports)], env=environment,
                                capture_output=True, text=True).returncode)
written = sorted(os.path.basename(p) for p in glob.glob(os.path.join(reports, "shard-*.json")))
check("every pod of the Indexed Job runs its shard and writes its report",
      codes == [0] * count and written == [f"shard-{i}.json" for i in range(1, count + 1)],
      f"exit codes {codes}, reports {written}")
with open(os.path.join(DEPLOY, "kubernetes", "merge-job.yaml")) as file:
    merge_job = yaml.safe_load(file)
merge_script = merge_job["spec"]["template"]["spec"]["containers"][0]["args"][0]
os.makedirs(os.path.join(reports, "merged"))
merged = subprocess.run(["/bin/sh", "-c", local(merge_script, reports)], capture_output=True, text=True)
whole = os.path.join(WORK, "whole.json")
subprocess.run([BINARY, "run", LIBRARY, "--report-json", whole], capture_output=True, check=False)
check_merged("merge Job", merged, os.path.join(reports, "merged"), whole)
os.remove(os.path.join(reports, f"shard-{count}.json"))
shutil.rmtree(os.path.join(reports, "merged"))
os.makedirs(os.path.join(reports, "merged"))
missing = subprocess.run(["/bin/sh", "-c", local(merge_script, reports)], capture_output=True, text=True)
check("the merge Job fails when a pod's report is missing",
      missing.returncode == 2 and "in no report" in missing.stderr, missing.stderr)

# -- the GitHub Actions matrix, run as the runner would run it

with open(WORKFLOW) as file:
    workflow = yaml.safe_load(file)
shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
matrix = shard_job["strategy"]["matrix"]["shard"]
check("the matrix counts shards from 1 and the merge job waits for all of them, whatever they gave",
      matrix == list(range(1, len(matrix) + 1)) and merge_job.get("needs") == "shard"
      and merge_job.get("if") == "always()" and shard_job["strategy"].get("fail-fast") is False,
      f"matrix {matrix}, needs {merge_job.get('needs')}, if {merge_job.get('if')}")
run_step = next(step["run"] for step in shard_job["steps"] if "--shard-split" in step.get("run", ""))
reports = os.path.join(WORK, "actions")
codes = []
for shard in matrix:
    command = (run_step.replace("${{ matrix.shard }}", str(shard))
               .replace("${{ strategy.job-total }}", str(len(matrix)))
               .replace("scripts/run", f"{BINARY} run {LIBRARY}", 1)
               .replace("reports/", reports + "/"))
    codes.append(subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True).returncode)
check("every matrix job runs its shard", codes == [0] * len(matrix), codes)
merge_step = next(step["run"] for step in merge_job["steps"] if "merge-reports" in step.get("run", ""))
merge_command = merge_step[merge_step.index('"$(swift build'):]
merge_command = (merge_command.replace('"$(swift build --show-bin-path)/signinsim"', BINARY)
                 .replace("shards/", reports + "/").replace("merged/", os.path.join(WORK, "actions-merged") + "/"))
# download-artifact puts every shard's files under shards/, not where the shards wrote them.
moved = os.path.join(WORK, "actions-downloaded")
os.makedirs(moved)
shutil.move(os.path.join(reports, "har"), os.path.join(moved, "har"))
merge_command = merge_command.replace(reports + "/har", os.path.join(moved, "har"))
merged = subprocess.run(["/bin/sh", "-c", merge_command], capture_output=True, text=True)
check_merged("merge job", merged, os.path.join(WORK, "actions-merged"), whole)

shutil.rmtree(WORK, ignore_errors=True)
finish()
