"""Assigns an alert through GraphQL (with requests, as a script of an on-call tool would), then
reads the assignee's to-do with python-gitlab.

usage: python3 python_gitlab_alert_actions_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab
import requests

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

user = gl.users.create({"username": "on-call", "name": "On Call", "email": "on-call@example.com", "password": "correct-horse-9", "skip_confirmation": True})
user_token = user.impersonationtokens.create({"name": "check", "scopes": ["api"]}).token
project = gl.projects.create({"name": "alerting-service"})
project.members.create({"user_id": user.id, "access_level": gitlab.const.DEVELOPER_ACCESS})

# An integration, and an alert posted to its address.
integration = gl.http_post(f"/projects/{project.id}/alert_management_http_integrations", post_data={"name": "Prometheus-ish"})
received = requests.post(integration["url"], json={"title": "Error rate above 5%"}, headers={"Authorization": f"Bearer {integration['token']}"}, timeout=30)
assert received.status_code == 200, received.text
iid = received.json()[0]["iid"]


def graphql(token, query, variables):
    res = requests.post(f"{url}/api/graphql", json={"query": query, "variables": variables}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert res.status_code == 200, res.text
    return res.json()


assign = """mutation($input: AlertSetAssigneesInput!) {
  alertSetAssignees(input: $input) { errors alert { iid assignees { nodes { username } } } }
}"""
body = graphql(root_token, assign, {"input": {"projectPath": project.path_with_namespace, "iid": str(iid), "assigneeUsernames": ["on-call"]}})
assert body == {"data": {"alertSetAssignees": {"errors": [], "alert": {"iid": str(iid), "assignees": {"nodes": [{"username": "on-call"}]}}}}}, body

# The assignee's to-do list shows it, pointing at the alert.
on_call = gitlab.Gitlab(url, private_token=user_token)
todos = on_call.todos.list()
assert len(todos) == 1, [t.attributes for t in todos]
todo = todos[0]
assert todo.action_name == "assigned" and todo.target_type == "AlertManagement::Alert" and todo.state == "pending", todo.attributes
assert todo.target == {"iid": iid, "title": "Error rate above 5%"}, todo.target
assert todo.target_url == f"{url}/{project.path_with_namespace}/-/alert_management/{iid}/details", todo.target_url
assert todo.body == "Error rate above 5%" and todo.author["username"] == "root", todo.attributes
assert [t.id for t in on_call.todos.list(type="AlertManagement::Alert")] == [todo.id]

# Acknowledged by the assignee, then done from the list.
status = """mutation($input: UpdateAlertStatusInput!) { updateAlertStatus(input: $input) { errors alert { status } } }"""
body = graphql(user_token, status, {"input": {"projectPath": project.path_with_namespace, "iid": str(iid), "status": "ACKNOWLEDGED"}})
assert body == {"data": {"updateAlertStatus": {"errors": [], "alert": {"status": "ACKNOWLEDGED"}}}}, body
todo.mark_as_done()
assert on_call.todos.list() == []
assert [t.state for t in on_call.todos.list(state="done")] == ["done"]

print("ok")
