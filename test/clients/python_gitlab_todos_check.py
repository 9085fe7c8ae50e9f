"""Drives a running Quarry's to-do items with python-gitlab, as an integration would.

usage: python3 python_gitlab_todos_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

bob = gl.users.create({"username": "todo-bob", "name": "Bob", "email": "todo-bob@example.com", "password": "todo-bob-password-1", "skip_confirmation": True})
token = bob.impersonationtokens.create({"name": "todos", "scopes": ["api"]}).token
as_bob = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({"name": "todos-check", "initialize_with_readme": True})
project.members.create({"user_id": bob.id, "access_level": 30})

# Assigned and addressed on a new issue: two to-dos, newest first, the issue as their target.
issue = project.issues.create({"title": "Look", "description": "@todo-bob please look", "assignee_ids": [bob.id]})
todos = as_bob.todos.list()
assert [t.action_name for t in todos] == ["directly_addressed", "assigned"], [t.action_name for t in todos]
first = todos[0]
assert first.target_type == "Issue" and first.target["iid"] == issue.iid, first.attributes
assert first.body == "Look" and first.state == "pending", first.attributes
assert first.project["id"] == project.id and first.author["username"] == gl.user.username, first.attributes
assert first.target_url.endswith(f"/-/issues/{issue.iid}"), first.target_url

assert [t.action_name for t in as_bob.todos.list(action="assigned")] == ["assigned"]
assert as_bob.todos.list(type="MergeRequest") == []
assert len(as_bob.todos.list(project_id=project.id)) == 2

# One done, then the issue marked by Bob himself: 201, and an error (304) while it is pending.
first.mark_as_done()
assert first.state == "done", first.state
assert [t.action_name for t in as_bob.todos.list()] == ["assigned"]
bob_issue = as_bob.projects.get(project.id, lazy=True).issues.get(issue.iid)
bob_issue.todo()
try:
    bob_issue.todo()
    raise AssertionError("a second pending to-do was made")
except gitlab.exceptions.GitlabTodoError as e:
    assert e.response_code == 304, e.response_code

# A merge request asking Bob for a review.
project.branches.create({"branch": "feature", "ref": "main"})
project.commits.create({"branch": "feature", "commit_message": "Add a file", "actions": [{"action": "create", "file_path": "feature.txt", "content": "x"}]})
mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Feature", "reviewer_ids": [bob.id]})
reviews = as_bob.todos.list(type="MergeRequest")
assert [(t.action_name, t.target["iid"]) for t in reviews] == [("review_requested", mr.iid)], [t.attributes for t in reviews]
assert reviews[0].target["source_branch"] == "feature" and reviews[0].target["merge_status"] in ("unchecked", "checking", "can_be_merged")
as_bob.projects.get(project.id, lazy=True).mergerequests.get(mr.iid).todo()

# Someone else's to-do is none of the caller's business.
try:
    gl.http_post(f"/todos/{reviews[0].id}/mark_as_done")
    raise AssertionError("another user's to-do was marked done")
except gitlab.exceptions.GitlabHttpError as e:
    assert e.response_code == 404, e.response_code

as_bob.todos.mark_all_as_done()
assert as_bob.todos.list() == []
assert len(as_bob.todos.list(state="done", all=True)) == 5

print("ok")
