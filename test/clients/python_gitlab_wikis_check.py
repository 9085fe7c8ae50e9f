"""Drives a running Quarry's project and group wikis with python-gitlab, uploads an attachment,
then clones the project's wiki over HTTP and finds the page's file in it.

usage: python3 python_gitlab_wikis_check.py <url> <root token>
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

group = gl.groups.create({"name": "Wiki check", "path": "wiki-check"})
project = gl.projects.create({"name": "manual", "namespace_id": group.id})

# Project wiki pages: create, list, read, edit, delete.
page = project.wikis.create({"title": "Getting started", "content": "# Start here"})
assert (page.slug, page.title, page.format, page.content, page.encoding) == ("Getting-started", "Getting started", "markdown", "# Start here", "UTF-8"), page.attributes
project.wikis.create({"title": "reference/API keys", "content": "= Keys", "format": "asciidoc"})
assert [p.slug for p in project.wikis.list(all=True)] == ["Getting-started", "reference/API-keys"]
assert [p.content for p in project.wikis.list(all=True, with_content=True)] == ["# Start here", "= Keys"]
nested = project.wikis.get("reference/API-keys")
assert (nested.title, nested.format) == ("API keys", "asciidoc"), nested.attributes
nested.content = "= Keys, revised"
nested.format = "asciidoc"
nested.save()
assert project.wikis.get("reference/API-keys").content == "= Keys, revised"
refused(lambda: project.wikis.get("Nowhere"), 404, "404 Wiki Page Not Found")
refused(lambda: project.wikis.create({"title": "Getting started", "content": "again"}), 400, {"base": ["Duplicate page: A page with that title already exists"]})
project.wikis.get("reference/API-keys").delete()
assert [p.slug for p in project.wikis.list(all=True)] == ["Getting-started"]

# An attachment, uploaded as the API's multipart form.
uploaded = gl.http_post(f"/projects/{project.id}/wikis/attachments", files={"file": ("logo.png", b"\x89PNG")}, post_data={"branch": "master"})
assert uploaded["file_name"] == "logo.png" and uploaded["branch"] == "master", uploaded
assert uploaded["file_path"].startswith("uploads/") and uploaded["link"] == {"url": uploaded["file_path"], "markdown": f"![logo]({uploaded['file_path']})"}, uploaded

# Group wiki pages.
group_page = group.wikis.create({"title": "Team notes", "content": "* agenda", "format": "org"})
assert (group_page.slug, group_page.format) == ("Team-notes", "org"), group_page.attributes
assert [p.slug for p in group.wikis.list(all=True)] == ["Team-notes"]
group.wikis.get("Team-notes").delete()
assert group.wikis.list(all=True) == []

# The wiki is a git repository of its own: cloned over HTTP, the page is a file, and so is the attachment.
host = urllib.parse.urlsplit(url)
clone_url = f"{host.scheme}://root:{root_token}@{host.netloc}/{project.path_with_namespace}.wiki.git"
with tempfile.TemporaryDirectory() as scratch:
    env = {"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin", "HOME": scratch}
    subprocess.run(["git", "clone", "--quiet", clone_url, scratch + "/wiki"], check=True, env=env)
    with open(os.path.join(scratch, "wiki", "Getting-started.md")) as f:
        assert f.read() == "# Start here"
    assert os.path.exists(os.path.join(scratch, "wiki", uploaded["file_path"]))

print("ok")
