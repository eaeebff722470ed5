#!/usr/bin/env python3
"""The lab's completeness, measured: mutation testing of correct student solutions with
`fencing-lab check` as the only test. mutmut (PyPI, pinned) mutates three Python solutions of
the zoo and Stryker (npm, pinned in package-lock.json) a JavaScript one; every mutant `check`
passes is a hole in the checker, unless it is listed in equivalent.toml with the reason it
cannot change what the seed decides. Exits 1 on a survivor not listed there, and on a listed one
that no longer survives (the list is kept exact).

    tests/lab/mutation/run.py target/release/fencing-lab
"""

import json
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ZOO = HERE.parent / "zoo"
MUTMUT = "mutmut==2.5.1"  # the last with a custom runner: mutmut 3 runs only pytest
PYTHON_SOLUTIONS = ["python-raise-none", "python-return-false", "python-dict-leases"]
JS_SOLUTION = "js-throw-map"


def sh(*args, **kw):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw)


def starter(binary, language, solution, file, into):
    folder = into / solution
    sh(binary, "lab", "init", language, str(folder))
    (folder / file).write_text((ZOO / solution / file).read_text())
    return folder


def diff_lines(text):
    """The lines a mutant removed and added, without their indentation."""
    before = [l[1:].strip() for l in text.splitlines() if l.startswith("-") and not l.startswith("---")]
    after = [l[1:].strip() for l in text.splitlines() if l.startswith("+") and not l.startswith("+++")]
    return " / ".join(before), " / ".join(after)


def run_mutmut(binary, work):
    venv = work / "venv"
    sh(sys.executable, "-m", "venv", str(venv))
    sh(str(venv / "bin" / "pip"), "install", "--quiet", MUTMUT)
    mutmut = str(venv / "bin" / "mutmut")
    results = {}
    for solution in PYTHON_SOLUTIONS:
        folder = starter(binary, "python", solution, "lock_service.py", work)
        (folder / "setup.cfg").write_text(
            "[mutmut]\npaths_to_mutate=lock_service.py\ntests_dir=.\n"
            f"runner={binary} check . --timeout 2\n"
        )
        subprocess.run([mutmut, "run", "--no-progress"], cwd=folder, capture_output=True)
        db = sqlite3.connect(folder / ".mutmut-cache")
        rows = db.execute("select id, status from Mutant").fetchall()
        survived = []
        for mutant_id, status in rows:
            if status == "bad_survived":
                shown = subprocess.run([mutmut, "show", str(mutant_id)], cwd=folder,
                                       capture_output=True, text=True).stdout
                survived.append(diff_lines(shown))
        # "Suspicious" is killed, only slowly (a busy machine): check failed on it all the same.
        killed = sum(1 for _, s in rows if s in ("ok_killed", "bad_timeout", "ok_suspicious"))
        results[("mutmut", solution)] = (len(rows), killed, survived)
    return results


def run_stryker(binary, work):
    sh("npm", "ci", "--no-audit", "--no-fund", "--silent", cwd=HERE)
    folder = starter(binary, "js", JS_SOLUTION, "lock_service.mjs", work)
    config = {
        "mutate": ["lock_service.mjs"],
        "testRunner": "command",
        "commandRunner": {"command": f"{binary} check . --timeout 2"},
        "reporters": ["json"],
        "jsonReporter": {"fileName": "mutation.json"},
        "concurrency": 1,
        "timeoutMS": 60000,
        "tempDirName": ".stryker-tmp",
        "plugins": [str(HERE / "node_modules" / "@stryker-mutator" / "*")],
    }
    (folder / "stryker.config.json").write_text(json.dumps(config))
    subprocess.run([str(HERE / "node_modules" / ".bin" / "stryker"), "run"], cwd=folder,
                   capture_output=True)
    report = json.loads((folder / "mutation.json").read_text())
    source = (folder / "lock_service.mjs").read_text().splitlines()
    mutants = report["files"]["lock_service.mjs"]["mutants"]
    survived = []
    for m in mutants:
        if m["status"] == "Survived":
            line = m["location"]["start"]["line"]
            survived.append((source[line - 1].strip(), m["mutatorName"] + ": " + m["replacement"].strip()))
    killed = sum(1 for m in mutants if m["status"] in ("Killed", "Timeout"))
    return {("stryker", JS_SOLUTION): (len(mutants), killed, survived)}


def main():
    binary = str(pathlib.Path(sys.argv[1]).resolve())
    listed = tomllib.loads((HERE / "equivalent.toml").read_text())["equivalent"]
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        results = run_mutmut(binary, work)
        results.update(run_stryker(binary, work))
    failed = False
    for (tool, solution), (total, killed, survived) in sorted(results.items()):
        # A mutant neither killed nor surviving was never judged: nothing passes untested.
        untested = total - killed - len(survived)
        if untested:
            failed = True
            print(f"NOT TESTED ({tool}, {solution}): {untested} mutants neither killed nor surviving")
        known = [e for e in listed if e["tool"] == tool and e["solution"] == solution]
        explained = 0
        for before, after in survived:
            entry = next((e for e in known if e["before"] == before and e["after"] == after), None)
            if entry is None:
                failed = True
                print(f"UNEXPLAINED survivor ({tool}, {solution}):\n  - {before}\n  + {after}")
            else:
                explained += 1
                known.remove(entry)
        for stale in known:
            failed = True
            print(f"LISTED but no longer surviving ({tool}, {solution}): {stale['before']} -> {stale['after']}")
        print(f"{tool} {solution}: {total} mutants, {killed} killed, {explained} equivalent "
              f"(each listed with its reason), {len(survived) - explained} unexplained")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
