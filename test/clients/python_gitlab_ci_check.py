"""Drives a running Quarry's CI with python-gitlab, as an integration would: a configuration
committed, pipelines listed and created, a runner registered and taking jobs over the runner
protocol, jobs listed, shown, logged, retried, played and canceled, pipeline variables read,
commit statuses reported by an external system and listed.

usage: python3 python_gitlab_ci_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import time

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "ci-check", "initialize_with_readme": True})
project.files.create({
    "file_path": ".gitlab-ci.yml",
    "branch": "main",
    "commit_message": "Add CI",
    "content": "stages: [build, deploy]\nbuild:\n  stage: build\n  script: [make]\ndeploy:\n  stage: deploy\n  script: [ship]\n  when: manual\n",
})


def wait_for(predicate, what):
    for _ in range(100):
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


pushed = wait_for(lambda: project.pipelines.list(), "the push's pipeline")
assert pushed[0].source == "push" and pushed[0].ref == "main", pushed[0].attributes

# A pipeline through the API, with a variable.
pipeline = project.pipelines.create({"ref": "main", "variables": [{"key": "LEVEL", "value": "3"}]})
assert pipeline.status == "pending" and pipeline.source == "api", pipeline.attributes
assert [v.key for v in pipeline.variables.list()] == ["LEVEL"]
assert {p.id for p in project.pipelines.list(source="api")} == {pipeline.id}
try:
    project.pipelines.create({"ref": "no-such-branch"})
    raise AssertionError("a pipeline for a missing ref was created")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error.response_code

# The newer pipeline of the ref made the push's, which had started nothing, redundant.
assert project.pipelines.get(pushed[0].id).status == "canceled"

# A runner registers with the project's token and takes the build job; then there is none.
runners_token = gl.projects.get(project.id).runners_token
runner = gl.http_post("/runners", post_data={"token": runners_token, "description": "python"})
job = gl.http_post("/jobs/request", post_data={"token": runner["token"]})
assert job["job_info"]["name"] == "build", job["job_info"]
nothing = gl.http_post("/jobs/request", post_data={"token": runner["token"]})
assert nothing.status_code == 204, nothing

# The log as a runner sends it: raw bytes and a Content-Range, with the job's token.
patched = gl.session.patch(f"{url}/api/v4/jobs/{job['id']}/trace", headers={"JOB-TOKEN": job["token"], "Content-Range": "0-5", "Content-Type": "text/plain"}, data=b"built\n")
assert patched.status_code == 202 and patched.headers["Range"] == "0-6", (patched.status_code, patched.headers)
gl.http_put(f"/jobs/{job['id']}", post_data={"token": job["token"], "state": "success"})

api_job = project.jobs.get(job["id"])
assert api_job.status == "success" and api_job.name == "build", api_job.attributes
assert api_job.trace() == b"built\n"
# An optional manual job (when: manual on the job) leaves the pipeline successful.
wait_for(lambda: project.pipelines.get(pipeline.id).status == "success", "the pipeline to succeed")

jobs = pipeline.jobs.list()
assert sorted((j.name, j.status) for j in jobs) == [("build", "success"), ("deploy", "manual")], [(j.name, j.status) for j in jobs]
deploy = project.jobs.get(next(j.id for j in jobs if j.name == "deploy"))
deploy.play()
assert project.jobs.get(deploy.id).status == "pending"
project.jobs.get(deploy.id).cancel()
assert project.jobs.get(deploy.id).status == "canceled"
retried = project.jobs.get(deploy.id).retry()
assert retried["status"] == "pending" and retried["id"] != deploy.id, retried

project.pipelines.get(pipeline.id).cancel()
assert project.jobs.get(retried["id"]).status == "canceled"
project.pipelines.get(pipeline.id).retry()
# The retried pipeline brings its canceled manual job back, waiting to be played.
assert [j.name for j in project.jobs.list(scope=["manual"])] == ["deploy"]
project.pipelines.delete(pushed[0].id)
assert pushed[0].id not in {p.id for p in project.pipelines.list()}

# An external system reports on the commit: its status joins the commit's newest pipeline, moves
# from running to success, and lists among the commit's statuses; job lists leave it out.
commit = project.commits.get("main")
status = commit.statuses.create({"state": "running", "name": "external/lint", "target_url": "https://ci.example.com/1", "description": "linting", "coverage": 81.5})
assert (status.status, status.name, status.ref, status.sha, status.coverage) == ("running", "external/lint", "main", commit.id, 81.5), status.attributes
done = commit.statuses.create({"state": "success", "name": "external/lint"})
assert (done.id, done.status, done.description, done.target_url) == (status.id, "success", "linting", "https://ci.example.com/1"), done.attributes
again = commit.statuses.create({"state": "failed", "context": "external/lint", "ref": "main"})
assert again.id != status.id and again.status == "failed", again.attributes
try:
    commit.statuses.create({"state": "bogus"})
    raise AssertionError("a bogus state was accepted")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error.response_code
assert [(s.id, s.status) for s in commit.statuses.list(name="external/lint")] == [(again.id, "failed")]
assert [s.id for s in commit.statuses.list(get_all=True, all=True) if s.name == "external/lint"] == [status.id, again.id]
assert "external/lint" not in {j.name for j in project.jobs.list(get_all=True)}
assert project.commits.get(commit.id).last_pipeline["id"] == pipeline.id
assert project.pipelines.get(pipeline.id).status == "failed"

print("ok")
