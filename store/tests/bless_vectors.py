#!/usr/bin/env python3
"""Merges the actual results written by `STORE_BLESS=1 cargo test -p
agent-checkpoint-store --test vectors` into tests/vectors/store_*.json
(review the diff before committing: the vectors pin Go's bytes)."""
import json, os, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
vectors = os.path.join(here, "..", "..", "tests", "vectors")
actual_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "store_vectors_actual.jsonl")
actual = {}
for line in open(actual_path):
    d = json.loads(line)
    actual[(d["file"], d["name"])] = d["actual"]
for name in sorted(os.listdir(vectors)):
    if not (name.startswith("store_") and name.endswith(".json")):
        continue
    path = os.path.join(vectors, name)
    doc = json.load(open(path))
    for case in doc["cases"]:
        for key in ("expect_files", "expect_messages", "expect_text", "expect_error"):
            case.pop(key, None)
        case.update(actual[(name, case["name"])])
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
