"""The four import calls of the original Python client, as it sends them on the wire.

The client itself is not installable here (no PyPI), so this script sends the same requests with
the same library (requests) and the same body shapes: `upload_files` (an upload URL per file,
then /cloud with `uploadLocal: "true"` and null contextData/metadata), `create_asset_builder_template`
(the camelCase template), the project listing read back, and `upload_files_with_asset_builder`
(HTML content per CSV row with classification pre-labels, /cloud with `uploadLocal: "true"`).

Usage: client_imports.py <host> <apikey> <project id> <work dir>; prints one JSON document.
"""
import csv
import json
import os
import sys
import uuid

import requests

host, api_key, project_id, work = sys.argv[1:5]
session = requests.Session()
HEADERS = {"Content-Type": "application/json", "apikey": api_key}


def make_request(method, endpoint, payload=None):
    response = session.request(method, host + endpoint, headers=HEADERS, json=payload)
    return {"status": response.status_code, "body": response.json()}


def cloud(assets, upload_local):
    # The client builds this body with json.dumps and posts it as data.
    payload = json.dumps({"assets": assets, "uploadLocal": upload_local, "priority": 0})
    response = session.post(f"{host}/v2/project/{project_id}/cloud", headers=HEADERS, data=payload)
    return {"status": response.status_code, "body": response.json()}


def upload_files(paths):
    make_request("GET", f"/v2/project/{project_id}")
    assets = []
    for path in paths:
        with open(path, "rb") as file:
            fname = uuid.uuid4().hex + "." + file.name.split(".")[-1]
            url = "%s/v2/getUploadUrl?name=%s&project=%s&type=%s" % (host, fname, project_id, "assets")
            upload_url = session.get(url, headers={"apikey": api_key}).json()["data"]["uploadUrl"]
            requests.put(upload_url, data=file.read())
            assets.append({"data": upload_url.split("?")[0], "externalId": file.name,
                           "contextData": None, "metadata": None})
    return cloud(assets, "true")


def create_asset_builder_template(template):
    return make_request("POST", f"/v2/project/{project_id}/assetBuilderTemplates", template)


def get_asset_builder_templates():
    project = make_request("GET", f"/v2/project/{project_id}")["body"]
    return project.get("data", {}).get("project", {}).get("assetBuilderTemplates", [])


def upload_files_with_asset_builder(template_id, csv_path):
    project = make_request("GET", f"/v2/project/{project_id}")["body"]
    templates = project.get("data", {}).get("project", {}).get("assetBuilderTemplates", [])
    template = next(t for t in templates if t["_id"] == template_id)
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    assets = []
    for row in rows:
        html = template["template"]
        for column in template["dataConfig"]:
            html = html.replace("{{%s}}" % column, row[column])
        context = {c: row[c] for c in row if template["dataConfig"].get(c, {}).get("includeInExport", False)}
        pre_labels = [{"title": item["cla"]["title"], "schemaId": item["cla"]["schemaId"], "answer": row[item["value"]]}
                      for item in template.get("preLabelConfig", {}).values()]
        assets.append({"data": html, "externalId": row[template["selectedExternalId"]], "contextData": context,
                       "classifications": pre_labels, "batches": []})
    return cloud(assets, "true")


os.makedirs(work, exist_ok=True)
images = []
for name in ("first.png", "second.png"):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + name.encode())
    images.append(path)
with open(os.path.join(work, "rows.csv"), "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["sku", "title", "picture", "weather"])
    writer.writerow(["SKU-1", "Red shoe", "https://cdn.example.com/shoe.jpg", "sun"])
    writer.writerow(["SKU-2", "Blue hat", "https://cdn.example.com/hat.jpg", "rain"])

result = {"uploadFiles": upload_files(images)}
result["createTemplate"] = create_asset_builder_template({
    "description": "A product with its picture",
    "name": "Product card",
    "template": '<h1>{{title}}</h1><img src="{{picture}}"><p>{{sku}}</p>',
    "batchColumn": "",
    "selectedExternalId": "sku",
    "dataConfig": {
        "sku": {"type": "text", "includeInExport": True},
        "title": {"type": "text", "includeInExport": False},
        "picture": {"type": "image", "includeInExport": False, "storage": "Public"},
        "weather": {"type": "text", "includeInExport": False},
    },
    "preLabelConfig": {"weather": {"cla": {"schemaId": "weather", "tool": "radio", "title": "Weather"},
                                   "value": "weather"}},
})
result["templates"] = get_asset_builder_templates()
template_id = result["templates"][0]["_id"] if result["templates"] else None
result["builderUpload"] = upload_files_with_asset_builder(template_id, os.path.join(work, "rows.csv"))
print(json.dumps(result))
