"""Drives a running Quarry's templates with python-gitlab: licenses, gitignores, CI files,
Dockerfiles, and a project's issue and merge request templates.

usage: python3 python_gitlab_templates_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import datetime
import sys

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()
year = str(datetime.datetime.now(datetime.timezone.utc).year)

licenses = gl.licenses.list(all=True)
assert [l.key for l in licenses][:3] == ["apache-2.0", "bsd-2-clause", "bsd-3-clause"], [l.key for l in licenses]
assert len(licenses) == 13
assert [l.key for l in gl.licenses.list(popular=True)] == ["apache-2.0", "gpl-3.0", "mit"]
mit = gl.licenses.get("mit", project="Wonderland", fullname="Alice Liddell")
assert mit.name == "MIT License" and mit.popular is True and mit.nickname is None, mit.attributes
assert mit.conditions == ["include-copyright"] and mit.limitations == ["liability", "warranty"], mit.attributes
assert f"Copyright (c) {year} Alice Liddell\n" in mit.content, mit.content[:80]
gpl = gl.licenses.get("gpl-3.0", project="Wonderland")
assert "    Wonderland\n" in gpl.content and gpl.nickname == "GNU GPLv3"
refused(lambda: gl.licenses.get("no-such-license"), 404, "404 License Not Found")

gitignores = gl.gitignores.list(all=True)
assert len(gitignores) > 150 and gitignores[0].name == "Actionscript", gitignores[0].attributes
python = gl.gitignores.get("Python")
assert python.name == "Python" and "__pycache__/" in python.content
refused(lambda: gl.gitignores.get("Nope"), 404, "404 gitignore Not Found")

ci = gl.gitlabciymls.list(all=True)
assert {"Bash", "Nodejs", "Python"} <= {t.key for t in ci}, [t.key for t in ci]
nodejs = gl.gitlabciymls.get("Nodejs")
assert nodejs.content.startswith("# This file is a template, and might need editing before it works on your project.\n")

dockerfiles = gl.dockerfiles.list(all=True)
assert len(dockerfiles) == 18 and dockerfiles[0].key == "Binary", [d.key for d in dockerfiles]
assert "FROM python:3" in gl.dockerfiles.get("Python").content

# A project's templates: its description templates come from its repository.
project = gl.projects.create({"name": "templated", "initialize_with_readme": True})
project.commits.create({
    "branch": "main",
    "commit_message": "Description templates",
    "actions": [
        {"action": "create", "file_path": ".gitlab/issue_templates/Bug.md", "content": "## Bug\n"},
        {"action": "create", "file_path": ".gitlab/merge_request_templates/Default.md", "content": "## Change\n"},
    ],
})
base = f"/projects/{project.id}/templates"
assert gl.http_list(f"{base}/issues", get_all=True) == [{"key": "Bug", "name": "Bug"}]
assert gl.http_get(f"{base}/issues/Bug") == {"name": "Bug", "content": "## Bug\n"}
assert gl.http_get(f"{base}/merge_requests/Default") == {"name": "Default", "content": "## Change\n"}
licensed = gl.http_get(f"{base}/licenses/mit", query_data={"fullname": "The Authors"})
assert f"Copyright (c) {year} The Authors\n" in licensed["content"], licensed["content"][:80]
refused(lambda: gl.http_get(f"{base}/issues/Nope"), 404, "404 Template Not Found")

print("ok")
