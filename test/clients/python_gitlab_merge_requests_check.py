"""Drives a running Quarry's merge requests with python-gitlab, as an integration would.

usage: python3 python_gitlab_merge_requests_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

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

print("ok")
