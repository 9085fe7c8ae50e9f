"""Drives a running Quarry's commit reverts and cherry-picks, issue boards and merge request approvals with python-gitlab.

usage: python3 python_gitlab_boards_approvals_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "boards-approvals", "initialize_with_readme": True})

# Reverting and cherry-picking commits.
added = project.commits.create({"branch": "main", "commit_message": "Add a", "actions": [{"action": "create", "file_path": "a.txt", "content": "a"}]})
reverted = added.revert(branch="main")
assert reverted["title"] == 'Revert "Add a"' and reverted["parent_ids"] == [added.id], reverted
refused(lambda: added.revert(branch="main"), 400, "Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.")
refused(lambda: added.revert(branch="nowhere"), 404, "404 Branch Not Found")
project.branches.create({"branch": "side", "ref": "main"})
side = project.commits.create({"branch": "side", "commit_message": "Side", "actions": [{"action": "create", "file_path": "side.txt", "content": "s"}]})
side.cherry_pick(branch="main")
head = project.commits.get("main")
assert head.message == f"Side\n\n(cherry picked from commit {side.id})", head.message
refused(lambda: side.cherry_pick(branch="main"), 400, "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.")

# Issue boards and their lists.
doing = project.labels.create({"name": "Doing", "color": "#00FF00"})
done = project.labels.create({"name": "Done", "color": "#0000FF"})
board = project.boards.create({"name": "Flow"})
assert board.name == "Flow" and board.attributes["lists"] == [] and board.project["id"] == project.id, board.attributes
board.name = "Team flow"
board.save()
assert project.boards.get(board.id).name == "Team flow"
first = board.lists.create({"label_id": doing.id})
second = board.lists.create({"label_id": done.id})
assert (first.position, second.position) == (0, 1), (first.attributes, second.attributes)
assert first.label["name"] == "Doing" and first.max_issue_count == 0 and first.limit_metric is None, first.attributes
second.position = 0
second.save()
assert [(l.label["name"], l.position) for l in board.lists.list(all=True)] == [("Done", 0), ("Doing", 1)]
refused(lambda: board.lists.create({"label_id": doing.id}), 400, {"label": ["has already been taken"]})
first.delete()
assert [l.id for l in board.lists.list(all=True)] == [second.id]
assert [b.id for b in project.boards.list(all=True)] == [board.id]

# Merge request approvals.
approvals = project.approvals.get()
assert approvals.approvals_before_merge == 0 and approvals.reset_approvals_on_push is True, approvals.attributes
approvals.approvals_before_merge = 1
approvals.merge_requests_author_approval = True
approvals.save()
assert project.approvals.get().approvals_before_merge == 1
project.branches.create({"branch": "feature", "ref": "main"})
project.commits.create({"branch": "feature", "commit_message": "Feature", "actions": [{"action": "create", "file_path": "f.txt", "content": "f"}]})
mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Feature"})
state = mr.approvals.get()
assert state.approvals_required == 1 and state.approvals_left == 1 and state.approved is False and state.user_can_approve is True, state.attributes
mr.approve(sha=mr.sha)
state = mr.approvals.get()
assert state.approved is True and [a["user"]["username"] for a in state.approved_by] == ["root"], state.attributes
refused(lambda: mr.approve(), 401, "401 Unauthorized")
assert mr.approval_state.get().rules == []
mr.unapprove()
assert mr.approvals.get().approved_by == []
refused(lambda: mr.unapprove(), 404, "404 Not Found")

print("ok")
