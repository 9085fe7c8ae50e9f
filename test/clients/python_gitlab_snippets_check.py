"""Drives a running Quarry's snippets (and a project snippet's notes and discussions) with python-gitlab, then clones and pushes one over HTTP.

usage: python3 python_gitlab_snippets_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import os
import subprocess
import sys
import tempfile
import urllib.parse

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

# Personal snippets: the legacy one-file form, raw content, the lists, an update with file actions.
snippet = gl.snippets.create({"title": "Greeting", "file_name": "hello.py", "content": "print('hi')\n", "visibility": "public"})
assert snippet.file_name == "hello.py" and snippet.visibility == "public" and snippet.project_id is None, snippet.attributes
assert [f["path"] for f in snippet.files] == ["hello.py"], snippet.files
assert snippet.http_url_to_repo == f"{url}/snippets/{snippet.id}.git", snippet.http_url_to_repo
assert snippet.content() == b"print('hi')\n"
assert snippet.id in [s.id for s in gl.snippets.list(all=True)]
assert snippet.id in [s.id for s in gl.snippets.public(all=True)]
fetched = gl.snippets.get(snippet.id)
fetched.title = "Greetings"
fetched.files = [{"action": "create", "file_path": "bye.py", "content": "print('bye')\n"}]
fetched.save()
fetched = gl.snippets.get(snippet.id)
assert fetched.title == "Greetings" and [f["path"] for f in fetched.files] == ["bye.py", "hello.py"], fetched.attributes
detail = fetched.user_agent_detail()
assert set(detail) == {"user_agent", "ip_address", "akismet_submitted"}, detail
refused(lambda: gl.snippets.get(999999), 404, "404 Snippet Not Found")

# Several files hold no legacy file: `files` must say which.
try:
    gl.snippets.update(snippet.id, {"content": "x"})
    raise AssertionError("a legacy update of a snippet with several files was accepted")
except gitlab.exceptions.GitlabUpdateError as error:
    assert error.response_code == 400, error

# The snippet's repository: cloned, pushed to by its author, seen through the API.
host = urllib.parse.urlsplit(url)
clone_url = f"{host.scheme}://root:{root_token}@{host.netloc}/snippets/{snippet.id}.git"
env = {"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(),
       "GIT_AUTHOR_NAME": "Check", "GIT_AUTHOR_EMAIL": "check@example.com", "GIT_COMMITTER_NAME": "Check", "GIT_COMMITTER_EMAIL": "check@example.com"}
with tempfile.TemporaryDirectory() as scratch:
    work = os.path.join(scratch, "clone")
    subprocess.run(["git", "clone", "--quiet", clone_url, work], check=True, env=env)
    assert sorted(os.listdir(work)) == [".git", "bye.py", "hello.py"], os.listdir(work)
    with open(os.path.join(work, "hello.py"), "w") as f:
        f.write("print('hello')\n")
    subprocess.run(["git", "-C", work, "commit", "--quiet", "-am", "Louder"], check=True, env=env)
    subprocess.run(["git", "-C", work, "push", "--quiet", "origin", "HEAD"], check=True, env=env)
assert gl.http_get(f"/snippets/{snippet.id}/files/main/hello.py/raw").content == b"print('hello')\n"

# Project snippets.
project = gl.projects.create({"name": "snippet-home"})
code = project.snippets.create({"title": "Setup", "file_name": "setup.sh", "content": "echo hi\n", "visibility": "private"})
assert code.project_id == project.id and code.file_name == "setup.sh", code.attributes
assert code.web_url == f"{url}/{project.path_with_namespace}/-/snippets/{code.id}", code.web_url
assert [s.id for s in project.snippets.list(all=True)] == [code.id]
assert code.content() == b"echo hi\n"
code.description = "installs"
code.save()
assert project.snippets.get(code.id).description == "installs"
with tempfile.TemporaryDirectory() as scratch:
    project_clone = f"{host.scheme}://root:{root_token}@{host.netloc}/{project.path_with_namespace}/snippets/{code.id}.git"
    subprocess.run(["git", "clone", "--quiet", project_clone, scratch + "/clone"], check=True, env=env)
    assert open(scratch + "/clone/setup.sh").read() == "echo hi\n"
# Comments and threads on the project snippet.
note = code.notes.create({"body": "Works for me"})
assert note.noteable_type == "Snippet" and note.noteable_id == code.id and note.noteable_iid is None, note.attributes
second = code.notes.create({"body": "Me too"})
assert [n.id for n in code.notes.list(all=True)] == [second.id, note.id]
assert [n.id for n in code.notes.list(all=True, sort="asc", order_by="updated_at")] == [note.id, second.id]
note = code.notes.get(note.id)
note.body = "Works for me, too"
note.save()
assert code.notes.get(note.id).body == "Works for me, too"
second.delete()
refused(lambda: code.notes.get(second.id), 404, "404 Not found")
refused(lambda: code.notes.create({"body": " "}), 400, "400 Bad request - Note {:note=>[\"can't be blank\"]}")
thread = code.discussions.create({"body": "Why sh?"})
assert thread.individual_note is False and thread.attributes["notes"][0]["type"] == "DiscussionNote", thread.attributes
reply = thread.notes.create({"body": "Portable"})
assert [n["body"] for n in code.discussions.get(thread.id).attributes["notes"]] == ["Why sh?", "Portable"]
assert [d.individual_note for d in code.discussions.list(all=True)] == [True, False]
reply = thread.notes.get(reply.id)
reply.body = "Portable enough"
reply.save()
reply.delete()
refused(lambda: project.snippets.create({"title": "t", "file_name": "a", "content": "a", "visibility": "secret"}), 400, "visibility does not have a valid value")
code.delete()
assert project.snippets.list(all=True) == []

gl.snippets.delete(snippet.id)
refused(lambda: gl.snippets.get(snippet.id), 404, "404 Snippet Not Found")

print("ok")
