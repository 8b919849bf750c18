"""Validates the GitLab, JUnit and Checkstyle reports the tests keep, offline, against the
published schemas vendored in tests/data (their origins: tests/data/README.md).

    python check_formats.py SCHEMA_DIR REPORT_DIR

REPORT_DIR holds what the tests wrote (tests/ci_formats.rs, tests/untrusted.rs): `*.gitlab.json`,
`*.junit.xml` and `*.checkstyle.xml`. Each kind must be there at least once, so the
check cannot pass on nothing.

- GitLab: a JSON array; every issue valid against GitLab's own `codeclimate.json` (GitLab
  drops an issue that fails it), plus what GitLab's documentation asks and the schema
  does not say: `check_name`, one of the five severities, `location.lines.begin`, a path
  relative to the repository (no `/` or `./` in front), and fingerprints unique in the
  report (GitLab keys issues by them: a repeated one would hide a finding).
- JUnit: valid against the xUnit plugin's `junit-10.xsd` (the schema Jenkins' xUnit
  plugin checks JUnit reports with), and its counts match its test cases.
- Checkstyle: valid against the Checkstyle project's `checkstyle-report-1.0.0.xsd`.

Before judging anything it proves that it can fail: each report is broken in ways the
schemas (or the documented rules) forbid, and every one must be rejected.
"""

import copy
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

import jsonschema
import xmlschema

SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def gitlab_errors(validator, report):
    if not isinstance(report, list):
        return ["/: a Code Quality report is a JSON array"]
    errors = []
    seen = set()
    for i, issue in enumerate(report):
        errors += [
            f"/{i}/" + "/".join(str(p) for p in e.absolute_path) + f": {e.message}"
            for e in validator.iter_errors(issue)
        ]
        if not isinstance(issue, dict):
            continue
        if not isinstance(issue.get("check_name"), str) or not issue["check_name"]:
            errors.append(f"/{i}/check_name: missing")
        if issue.get("severity") not in SEVERITIES:
            errors.append(f"/{i}/severity: {issue.get('severity')!r} is not one of {sorted(SEVERITIES)}")
        location = issue.get("location") or {}
        path = location.get("path")
        if not isinstance(path, str) or not path or path.startswith(("/", "./")):
            errors.append(f"/{i}/location/path: {path!r} is not relative to the repository")
        begin = (location.get("lines") or {}).get("begin")
        if not isinstance(begin, int) or begin < 1:
            errors.append(f"/{i}/location/lines/begin: {begin!r} is not a line")
        fingerprint = issue.get("fingerprint")
        if fingerprint in seen:
            errors.append(f"/{i}/fingerprint: {fingerprint!r} repeated")
        seen.add(fingerprint)
    return errors


def gitlab_breakages(report):
    """(what, how the report is broken): each must be rejected."""

    def wrapped(r):
        return {"issues": r}

    def first(change):
        def broken(r):
            r = copy.deepcopy(r)
            change(r[0])
            return r

        return broken

    def no_fingerprint(i):
        del i["fingerprint"]

    def bad_severity(i):
        i["severity"] = "warning"

    def absolute(i):
        i["location"]["path"] = "/home/ci/" + i["location"]["path"]

    def no_line(i):
        del i["location"]["lines"]

    def line_as_text(i):
        i["location"]["lines"]["begin"] = str(i["location"]["lines"]["begin"])

    def twice(r):
        return copy.deepcopy(r) + [copy.deepcopy(r[0])]

    found = [("an object instead of an array", wrapped)]
    if report:
        found += [
            ("an issue without fingerprint", first(no_fingerprint)),
            ('severity "warning"', first(bad_severity)),
            ("an absolute path", first(absolute)),
            ("an issue without lines", first(no_line)),
            ("a line given as text", first(line_as_text)),
            ("a repeated fingerprint", twice),
        ]
    return found


def xml_errors(schema, text):
    try:
        return [str(e.reason or e) for e in schema.iter_errors(text)]
    except ET.ParseError as e:
        return [f"not well-formed XML: {e}"]
    except xmlschema.XMLSchemaException as e:
        return [f"not readable: {e}"]


def junit_errors(schema, text):
    errors = xml_errors(schema, text)
    if errors:
        return errors
    root = ET.fromstring(text)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        failed = [c for c in cases if c.find("failure") is not None]
        if suite.get("tests") != str(len(cases)):
            errors.append(f"testsuite tests={suite.get('tests')}, but {len(cases)} testcases")
        if suite.get("failures") != str(len(failed)):
            errors.append(f"testsuite failures={suite.get('failures')}, but {len(failed)} failed")
    return errors


def junit_breakages(text):
    found = [
        ("a testsuite without failures count", text.replace(' failures="', ' fails="', 2)),
        ("a raw control character", text.replace("override-guard", "override\x01guard", 1)),
        ("an unclosed element", text.replace("</testsuite>", "", 1)),
    ]
    if "<testcase " in text:
        found.append(("a testcase without name", text.replace('<testcase name="', '<testcase title="', 1)))
        found.append(("a miscounted suite", text.replace(' tests="', ' tests="9', 2)))
    return found


def checkstyle_breakages(text):
    found = [
        ("a file without name", text.replace('<checkstyle version="4.3">', '<checkstyle version="4.3"><file/>', 1)),
        ("an unknown element", text.replace("</checkstyle>", "<warning/></checkstyle>", 1)),
    ]
    if "<error " in text:
        found.append(('severity "warn"', re.sub(r' severity="[a-z]*"', ' severity="warn"', text, count=1)))
        found.append(("line 0", re.sub(r' line="[0-9]*"', ' line="0"', text, count=1)))
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    schemas, reports = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    with open(schemas / "gitlab-codeclimate.json", encoding="utf-8") as f:
        gitlab_schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(gitlab_schema)
    gitlab = jsonschema.Draft7Validator(gitlab_schema)
    junit = xmlschema.XMLSchema(str(schemas / "jenkins-xunit-junit-10.xsd"))
    checkstyle = xmlschema.XMLSchema(str(schemas / "checkstyle-report-1.0.0.xsd"))

    kinds = [
        ("*.gitlab.json", "GitLab Code Quality"),
        ("*.junit.xml", "JUnit"),
        ("*.checkstyle.xml", "Checkstyle"),
    ]
    failed = False
    for pattern, name in kinds:
        files = sorted(reports.glob(pattern))
        if not files:
            failed = True
            print(f"{reports}: no {pattern} report kept: the {name} check would pass on nothing")
            continue
        for path in files:
            text = path.read_text(encoding="utf-8")
            if pattern.endswith(".json"):
                try:
                    report = json.loads(text)
                except json.JSONDecodeError as e:
                    found, broken = [f"not JSON: {e}"], []
                else:
                    found = gitlab_errors(gitlab, report)
                    broken = [(what, gitlab_errors(gitlab, b(report))) for what, b in gitlab_breakages(report)]
                count = len(report) if not found else 0
            else:
                check = (lambda t: junit_errors(junit, t)) if name == "JUnit" else (lambda t: xml_errors(checkstyle, t))
                found = check(text)
                breakages = junit_breakages(text) if name == "JUnit" else checkstyle_breakages(text)
                broken = [(what, check(b)) for what, b in breakages]
                count = text.count("<testcase ") if name == "JUnit" else text.count("<error ")
            if found:
                failed = True
                print(f"{path}: not a valid {name} report:", *found, sep="\n  ")
                continue
            for what, errors in broken:
                if not errors:
                    failed = True
                    print(f"{path}: {what} was not rejected")
            print(f"{path}: valid {name} report ({count} entries), and rejected when broken ({len(broken)} ways)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
