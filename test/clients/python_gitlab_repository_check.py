"""Drives a running Quarry's repositories with python-gitlab and the git CLI, as an integration would.

usage: python3 python_gitlab_repository_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import base64
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from urllib.parse import urlsplit, urlunsplit

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "repo-check", "initialize_with_readme": True})
assert project.default_branch == "main" and project.empty_repo is False, (project.default_branch, project.empty_repo)

readme = project.files.get(file_path="README.md", ref="main")
assert readme.decode().startswith(b"# repo-check"), readme.decode()
assert project.files.raw(file_path="README.md", ref="main") == readme.decode()

# Files: create, read, update, delete.
project.files.create({"file_path": "docs/guide.md", "branch": "main", "content": "first", "commit_message": "Add the guide"})
guide = project.files.get(file_path="docs/guide.md", ref="main")
assert base64.b64decode(guide.content) == b"first" and guide.encoding == "base64"
guide.content = "second"
guide.save(branch="main", commit_message="Rewrite the guide")
assert project.files.raw(file_path="docs/guide.md", ref="main") == b"second"
try:
    project.files.create({"file_path": "docs/guide.md", "branch": "main", "content": "x", "commit_message": "again"})
    raise AssertionError("an existing file was created again")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400, e.response_code

# Commits: several actions at once, then list and read.
commit = project.commits.create({
    "branch": "main",
    "commit_message": "Reorganize",
    "actions": [
        {"action": "create", "file_path": "bin/run.sh", "content": "#!/bin/sh\n"},
        {"action": "chmod", "file_path": "bin/run.sh", "execute_filemode": True},
        {"action": "move", "file_path": "docs/manual.md", "previous_path": "docs/guide.md"},
        {"action": "create", "file_path": "data.bin", "content": base64.b64encode(bytes(range(256))).decode(), "encoding": "base64"},
    ],
})
assert commit.title == "Reorganize" and len(commit.parent_ids) == 1
titles = [c.title for c in project.commits.list(ref_name="main", all=True)]
assert titles == ["Reorganize", "Rewrite the guide", "Add the guide", "Initial commit"], titles
assert project.commits.get(commit.id).id == commit.id
assert project.files.raw(file_path="data.bin", ref="main") == bytes(range(256))
project.files.delete(file_path="data.bin", branch="main", commit_message="Drop the data")

tree = project.repository_tree(ref="main", recursive=True, all=True)
paths = sorted(entry["path"] for entry in tree if entry["type"] == "blob")
assert paths == ["README.md", "bin/run.sh", "docs/manual.md"], paths

archive = project.repository_archive(sha="main")
with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
    names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
assert "docs/manual.md" in names and "README.md" in names, names

# Branches and tags.
project.branches.create({"branch": "feature/login", "ref": "main"})
project.branches.create({"branch": "feature/logout", "ref": "main"})
assert [b.name for b in project.branches.list(search="^feature", all=True)] == ["feature/login", "feature/logout"]
login = project.branches.get("feature/login")
assert login.merged is False and login.protected is False and login.default is False  # level with main: not merged
try:
    project.branches.create({"branch": "bad..name", "ref": "main"})
    raise AssertionError("an invalid branch name was accepted")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400 and "Branch name is invalid" in str(e.error_message), e.error_message
project.branches.delete("feature/logout")
assert [b.name for b in project.branches.list(all=True)] == ["feature/login", "main"]

tag = project.tags.create({"tag_name": "v1.0.0", "ref": "main", "message": "First release"})
assert tag.message == "First release" and tag.commit["id"] == project.commits.get("main").id
assert [t.name for t in project.tags.list(all=True)] == ["v1.0.0"]

# Protected branches: the README commit protected main (maintainers only), as the platform does.
main_rule = project.protectedbranches.get("main")
assert [level["access_level"] for level in main_rule.push_access_levels] == [40]
project.protectedbranches.create({"name": "release/*", "push_access_level": 40, "merge_access_level": 30})
assert sorted(p.name for p in project.protectedbranches.list()) == ["main", "release/*"]
assert project.branches.get("main").protected is True

developer = gl.users.create({"username": "dev", "email": "dev@example.com", "name": "Dev", "password": "dev-password-1", "skip_confirmation": True})
project.members.create({"user_id": developer.id, "access_level": 30})
dev_token = developer.personal_access_tokens.create({"name": "git", "scopes": ["api"]}).token
as_dev = gitlab.Gitlab(url, private_token=dev_token).projects.get(project.id)
try:
    as_dev.files.create({"file_path": "dev.txt", "branch": "main", "content": "x", "commit_message": "sneak in"})
    raise AssertionError("a developer pushed to a protected branch")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code in (400, 403), e.response_code
as_dev.files.create({"file_path": "dev.txt", "branch": "feature/login", "content": "x", "commit_message": "Work"})

# The git CLI over HTTP: clone with a token, push a branch, see it through the API.
parts = urlsplit(url)
def with_credentials(user, password):
    return urlunsplit((parts.scheme, f"{user}:{password}@{parts.netloc}", f"{parts.path}/{project.path_with_namespace}.git", "", ""))

env = {"PATH": os.environ["PATH"], "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com", "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}
with tempfile.TemporaryDirectory() as work:
    env["HOME"] = work
    checkout = os.path.join(work, "checkout")
    subprocess.run(["git", "clone", "--quiet", with_credentials("anything", dev_token), checkout], check=True, env=env)
    with open(os.path.join(checkout, "cli.txt"), "w") as f:
        f.write("from the command line\n")
    subprocess.run(["git", "add", "cli.txt"], check=True, cwd=checkout, env=env)
    subprocess.run(["git", "commit", "--quiet", "-m", "From the CLI"], check=True, cwd=checkout, env=env)
    subprocess.run(["git", "push", "--quiet", "origin", "HEAD:refs/heads/cli"], check=True, cwd=checkout, env=env)
    refused = subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=checkout, env=env, capture_output=True, text=True)
    assert refused.returncode != 0 and "not allowed to push" in refused.stderr, refused.stderr
assert project.branches.get("cli").commit["title"] == "From the CLI"
assert project.commits.get("main").title == "Drop the data"

project.delete_merged_branches()
print("ok")
