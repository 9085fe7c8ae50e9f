"""Drives what python-gitlab of the 14.x era reaches of the security features: it has no managers
for them, so managed licenses, vulnerabilities, their findings and the dependency list go through
gl.http_get/http_post/http_put/http_delete and gl.http_list, as a script of a security tool would;
a pipeline's report errors come from GraphQL (with requests). The findings were produced by real
pipelines the test ran before: one on the default branch with sast, dependency scanning and
license scanning reports, and one on a branch whose sast report is cut short.

usage: python3 python_gitlab_security_check.py <url> <root token> <project id> <project path> <main pipeline id> <broken pipeline iid>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import urllib.parse

import gitlab
import requests

from checks import refused

url, root_token, project_id, project_path, main_pipeline_id, broken_iid = sys.argv[1:7]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()
base = f"/projects/{project_id}"


def status_of(call):
    """The status a refused call answered with."""
    try:
        call()
    except gitlab.exceptions.GitlabError as e:
        return e.response_code
    raise AssertionError("the call succeeded")


# A developer (the security dashboard) and a reporter (who reads licenses but not vulnerabilities).
project = gl.projects.get(project_id)
tokens = {}
for name, level in (("sec-dev", gitlab.const.DEVELOPER_ACCESS), ("sec-reporter", gitlab.const.REPORTER_ACCESS)):
    user = gl.users.create({"username": name, "name": name, "email": f"{name}@example.com", "password": "correct-horse-9", "skip_confirmation": True})
    project.members.create({"user_id": user.id, "access_level": level})
    tokens[name] = user.impersonationtokens.create({"name": "check", "scopes": ["api"]}).token
dev = gitlab.Gitlab(url, private_token=tokens["sec-dev"])
dev.auth()
reporter = gitlab.Gitlab(url, private_token=tokens["sec-reporter"])

# Managed licenses: created, read by id and by URL-encoded name, changed, duplicates refused, removed.
mit = gl.http_post(f"{base}/managed_licenses", post_data={"name": "MIT License", "approval_status": "approved"})
assert set(mit) == {"id", "name", "approval_status"} and mit["approval_status"] == "approved", mit
agpl = gl.http_post(f"{base}/managed_licenses", post_data={"name": "GNU Affero General Public License v3.0", "approval_status": "blacklisted"})
assert [l["name"] for l in reporter.http_list(f"{base}/managed_licenses", get_all=True)] == ["MIT License", "GNU Affero General Public License v3.0"]
assert gl.http_get(f"{base}/managed_licenses/{mit['id']}") == mit
assert gl.http_get(f"{base}/managed_licenses/" + urllib.parse.quote("mit license", safe="")) == mit
refused(lambda: gl.http_post(f"{base}/managed_licenses", post_data={"name": "MIT License", "approval_status": "blacklisted"}), 400, ["Software license has already been taken"])
refused(lambda: gl.http_post(f"{base}/managed_licenses", post_data={"name": "X", "approval_status": "denied"}), 400, "approval_status does not have a valid value")
refused(lambda: reporter.http_post(f"{base}/managed_licenses", post_data={"name": "X", "approval_status": "approved"}), 403, "403 Forbidden")
temporary = gl.http_post(f"{base}/managed_licenses", post_data={"name": "Unlicense", "approval_status": "approved"})
# python-gitlab has no PATCH helper: the request itself.
changed = gl.http_request("patch", f"{base}/managed_licenses/{temporary['id']}", post_data={"approval_status": "blacklisted"}).json()
assert changed == {"id": temporary["id"], "name": "Unlicense", "approval_status": "blacklisted"}, changed
gl.http_delete(f"{base}/managed_licenses/Unlicense")
refused(lambda: gl.http_get(f"{base}/managed_licenses/{temporary['id']}"), 404, "404 SoftwareLicensePolicy Not Found")

# The pipeline's licenses under that policy: the denied one fails it.
summary = reporter.http_get(f"{base}/pipelines/{main_pipeline_id}/licenses")
assert (summary["status"], summary["approved"], summary["blacklisted"], summary["unclassified"], summary["errors"]) == ("failed", 1, 1, 0, []), summary
assert {l["name"]: l["classification"]["approval_status"] for l in summary["licenses"]} == {"MIT License": "approved", "GNU Affero General Public License v3.0": "blacklisted"}

# Vulnerabilities of the default branch's findings, most severe first, each with its finding.
vulnerabilities = dev.http_list(f"{base}/vulnerabilities", get_all=True)
assert [(v["title"], v["severity"], v["state"], v["report_type"]) for v in vulnerabilities] == [
    ("SQL injection", "high", "detected", "sast"),
    ("ReDoS in minimist", "medium", "detected", "dependency_scanning"),
], vulnerabilities
sqli = vulnerabilities[0]
assert sqli["finding"]["vulnerability_id"] == sqli["id"] and sqli["finding"]["metadata_version"] == "14.0.4", sqli["finding"]
assert sqli["project"]["id"] == int(project_id) and sqli["project_default_branch"] == "main"
refused(lambda: reporter.http_list(f"{base}/vulnerabilities"), 403, "403 Forbidden")

# State changes: 201 with the single form, 304 when already there, who did it recorded.
vid = sqli["id"]
confirmed = dev.http_post(f"/vulnerabilities/{vid}/confirm")
assert confirmed["state"] == "confirmed" and confirmed["project"]["full_path"] == project_path, confirmed
assert status_of(lambda: dev.http_post(f"/vulnerabilities/{vid}/confirm")) == 304
dismissed = dev.http_post(f"/vulnerabilities/{vid}/dismiss")
assert dismissed["state"] == "closed" and dismissed["closed_by_id"] == dev.user.id and dismissed["closed_at"], dismissed
assert status_of(lambda: dev.http_post(f"/vulnerabilities/{vid}/dismiss")) == 304
resolved = dev.http_post(f"/vulnerabilities/{vid}/resolve")
assert resolved["state"] == "resolved"
listed = [v for v in dev.http_list(f"{base}/vulnerabilities", get_all=True) if v["id"] == vid][0]
assert listed["resolved_by_id"] == dev.user.id and listed["dismissed_by_id"] == dev.user.id, listed
reverted = dev.http_post(f"/vulnerabilities/{vid}/revert")
assert reverted["state"] == "detected" and reverted["closed_by_id"] is None, reverted
assert status_of(lambda: dev.http_post(f"/vulnerabilities/{vid}/revert")) == 304
refused(lambda: reporter.http_post(f"/vulnerabilities/{vid}/confirm"), 403, "403 Forbidden")
refused(lambda: dev.http_get("/vulnerabilities/999999"), 404, "404 Vulnerability Not Found")
assert dev.http_get(f"/vulnerabilities/{vid}")["state"] == "detected"

# A finding already attached cannot make a second vulnerability.
refused(
    lambda: dev.http_post(f"{base}/vulnerabilities", query_data={"finding_id": sqli["finding"]["id"]}),
    400,
    {"base": ["finding is not found or is already attached to a vulnerability"]},
)

# The dependency list: vulnerabilities for the security dashboard only, filtered by package manager.
dependencies = dev.http_list(f"{base}/dependencies", get_all=True)
assert dependencies == [
    {"name": "minimist", "version": "0.0.8", "package_manager": "npm", "dependency_file_path": "package-lock.json", "vulnerabilities": [{"name": "ReDoS in minimist", "severity": "medium"}]},
    {"name": "rails", "version": "6.1.4", "package_manager": "bundler", "dependency_file_path": "Gemfile.lock", "vulnerabilities": []},
], dependencies
assert [d["name"] for d in dev.http_list(f"{base}/dependencies", query_data={"package_manager": "bundler"}, get_all=True)] == ["rails"]
assert [d["name"] for d in dev.http_list(f"{base}/dependencies", query_data={"package_manager": "npm,yarn"}, get_all=True)] == ["minimist"]
assert all("vulnerabilities" not in d for d in reporter.http_list(f"{base}/dependencies", get_all=True))
refused(lambda: dev.http_list(f"{base}/dependencies", query_data={"package_manager": "cargo"}, get_all=True), 400, "package_manager does not have a valid value")

# The branch pipeline's cut-short sast report: an error of its scan, where the platform shows it.
query = """query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) {
  securityReportSummary { sast { vulnerabilitiesCount scans { nodes { name status errors warnings } } } dast { vulnerabilitiesCount } }
} } }"""


def graphql(token):
    res = requests.post(f"{url}/api/graphql", json={"query": query, "variables": {"path": project_path, "iid": broken_iid}}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert res.status_code == 200, res.text
    return res.json()


body = graphql(tokens["sec-dev"])
assert body == {"data": {"project": {"pipeline": {"securityReportSummary": {
    "sast": {"vulnerabilitiesCount": 0, "scans": {"nodes": [{"name": "sast", "status": "REPORT_ERROR", "errors": ["[ParsingError] JSON parsing failed"], "warnings": []}]}},
    "dast": None,
}}}}}, body
assert graphql(tokens["sec-reporter"]) == {"data": {"project": {"pipeline": {"securityReportSummary": None}}}}

# The cut-short report changed nothing on the default branch.
assert [v["resolved_on_default_branch"] for v in dev.http_list(f"{base}/vulnerabilities", get_all=True)] == [False, False]

print("ok")
