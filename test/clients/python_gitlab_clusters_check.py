"""Drives a running Quarry's project clusters with python-gitlab, as a deploy tool would.

usage: python3 python_gitlab_clusters_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import pathlib
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

CA_CERT = (pathlib.Path(__file__).parent.parent / "fixtures" / "kubernetes-ca.pem").read_text().strip()
API_URL = "https://kubernetes.example.com:6443"

group = gl.groups.create({"name": "Clusters", "path": "clusters-check"})
project = gl.projects.create({"name": "app", "namespace_id": group.id})
tools = gl.projects.create({"name": "tools", "namespace_id": group.id})

cluster = project.clusters.create({
    "name": "production",
    "domain": "apps.example.com",
    "environment_scope": "production",
    "management_project_id": tools.id,
    "platform_kubernetes_attributes": {"api_url": API_URL, "token": "sample-token", "ca_cert": CA_CERT, "namespace": "app"},
})
assert cluster.name == "production" and cluster.provider_type == "user" and cluster.platform_type == "kubernetes", cluster.attributes
assert cluster.platform_kubernetes == {"api_url": API_URL, "namespace": "app", "authorization_type": "rbac", "ca_cert": CA_CERT}, cluster.platform_kubernetes
assert cluster.management_project["path_with_namespace"] == "clusters-check/tools", cluster.management_project
assert cluster.project["id"] == project.id
assert cluster.user["username"] == gl.user.username
assert "token" not in cluster.platform_kubernetes

second = project.clusters.create({"name": "review", "environment_scope": "review/*", "platform_kubernetes_attributes": {"api_url": API_URL, "token": "t"}})
assert second.enabled is True and second.managed is True
assert "domain" not in second.attributes, second.attributes

listed = project.clusters.list(all=True)
assert [c.id for c in listed] == [cluster.id, second.id], [c.id for c in listed]
assert all("project" not in c.attributes for c in listed)

cluster = project.clusters.get(cluster.id)
cluster.name = "prod"
cluster.platform_kubernetes_attributes = {"namespace": "prod-app", "token": ""}
cluster.save()
cluster = project.clusters.get(cluster.id)
assert cluster.name == "prod" and cluster.platform_kubernetes["namespace"] == "prod-app", cluster.attributes


def refused(data, code, text):
    try:
        project.clusters.create(data)
    except gitlab.exceptions.GitlabError as e:
        assert e.response_code == code, (e.response_code, str(e))
        assert text in str(e), str(e)
        return
    raise AssertionError(f"a cluster was created from {data}")


platform = {"api_url": API_URL, "token": "t"}
refused({"name": "again", "environment_scope": "production", "platform_kubernetes_attributes": platform}, 400, "cannot add duplicated environment scope")
refused({"name": "bad", "environment_scope": "bad-ca", "platform_kubernetes_attributes": {**platform, "ca_cert": "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----"}}, 400, "must be a valid PEM certificate")
refused({"name": "local", "environment_scope": "local", "platform_kubernetes_attributes": {**platform, "api_url": "https://192.168.1.10:6443"}}, 400, "Requests to the local network are not allowed")
refused({"name": "elsewhere", "environment_scope": "elsewhere", "management_project_id": 987654, "platform_kubernetes_attributes": platform}, 400, "Project does not exist or you don't have permission to perform this action")

second.delete()
try:
    project.clusters.get(second.id)
    raise AssertionError("a deleted cluster was found")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404, e.response_code
assert [c.id for c in project.clusters.list(all=True)] == [cluster.id]

print("ok")
