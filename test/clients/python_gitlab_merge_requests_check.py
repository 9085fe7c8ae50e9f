"""Drives a running Quarry's merge requests with python-gitlab, as an integration would.

usage: python3 python_gitlab_merge_requests_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import time

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "mr-check", "initialize_with_readme": True})
project.branches.create({"branch": "feature", "ref": "main"})
project.commits.create({"branch": "feature", "commit_message": "Add a file", "actions": [{"action": "create", "file_path": "hello.txt", "content": "hi\n"}]})
issue = project.issues.create({"title": "Needs hello"})

mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Say hello", "description": f"Closes #{issue.iid}", "labels": ["greeting"]})
assert mr.iid == 1 and mr.state == "opened", (mr.iid, mr.state)
assert mr.labels == ["greeting"], mr.labels

try:
    project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Again"})
    raise AssertionError("a second open merge request was created")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 409, e.response_code
    assert "Another open merge request already exists for this source branch: !1" in str(e), str(e)

assert [m.iid for m in project.mergerequests.list(state="opened", all=True)] == [1]
assert [c.title for c in mr.commits()] == ["Add a file"]
changes = mr.changes()
assert [c["new_path"] for c in changes["changes"]] == ["hello.txt"], changes["changes"]
assert changes["changes"][0]["new_file"] is True

mr.notes.create({"body": "Nice"})
mr = project.mergerequests.get(1)
assert mr.user_notes_count == 1, mr.user_notes_count

mr.merge(should_remove_source_branch=True)
mr = project.mergerequests.get(1)
assert mr.state == "merged" and mr.merged_by["username"] == gl.user.username, mr.attributes
assert project.issues.get(issue.iid).state == "closed"
assert project.files.get("hello.txt", ref="main").decode() == b"hi\n"
assert [m.iid for m in gl.mergerequests.list(state="merged", all=True)] == [1]


def wait_for(predicate, what):
    for _ in range(200):
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# A configuration with a merge request job: opening a merge request makes its pipeline.
project.files.create({
    "file_path": ".gitlab-ci.yml",
    "branch": "main",
    "commit_message": "Add CI",
    "content": 'test:\n  script: [make test]\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n',
})
project.branches.create({"branch": "auto", "ref": "main"})
project.commits.create({"branch": "auto", "commit_message": "Add another", "actions": [{"action": "create", "file_path": "more.txt", "content": "more\n"}]})
auto = project.mergerequests.create({"source_branch": "auto", "target_branch": "main", "title": "Merge me later"})
pipelines = wait_for(lambda: auto.pipelines.list(), "the merge request's pipeline")
assert pipelines[0].source == "merge_request_event" and pipelines[0].ref == f"refs/merge-requests/{auto.iid}/head", pipelines[0].attributes
again = auto.pipelines.create()
assert again.source == "merge_request_event" and again.id != pipelines[0].id, again.attributes

# Set to merge when the pipeline succeeds; canceled, set again; a runner makes the pipeline succeed.
auto.merge(merge_when_pipeline_succeeds=True)
auto = project.mergerequests.get(auto.iid)
assert auto.merge_when_pipeline_succeeds is True and auto.state == "opened", auto.attributes
assert auto.cancel_merge_when_pipeline_succeeds() == {"status": "success"}
assert project.mergerequests.get(auto.iid).merge_when_pipeline_succeeds is False
auto.merge(merge_when_pipeline_succeeds=True)
runner = gl.http_post("/runners", post_data={"token": gl.projects.get(project.id).runners_token, "description": "python"})
while True:
    job = gl.http_post("/jobs/request", post_data={"token": runner["token"], "info": {"features": {"refspecs": True}}})
    if not isinstance(job, dict):
        break
    gl.http_put(f"/jobs/{job['id']}", post_data={"token": job["token"], "state": "success"})
merged = wait_for(lambda: (lambda m: m if m.state == "merged" else None)(project.mergerequests.get(auto.iid)), "the automatic merge")
assert merged.merged_by["username"] == gl.user.username and merged.merge_when_pipeline_succeeds is False, merged.attributes
assert project.files.get("more.txt", ref="main").decode() == b"more\n"

print("ok")
