#!/usr/bin/env python3
"""Fails when a doc names a repository file, preset or kattn command that does not exist.

Checked: README.md and docs/*.md. A path is a `code span` (or link target) that starts with one
of the repository's top-level source folders; a preset is `--preset NAME`; a command is
`kattn NAME`; in code blocks too. A file a command writes (after --output, >, ...) need not
exist, nor another project's file (a span after a possessive: vLLM's `tests/...`). A path with
placeholders (<...>, {a,b}, *, ARCH, ...) must match a file or name an existing folder before them.
"""
import glob, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = ("src/", "tests/", "docs/", "data/", "perf/", "scripts/", "presets/", "cmake/", "examples/",
       "integrations/", ".ci/")
WRITES = ("--output", "--out", "--json", "--write-trace", "--failures", ">", "-o")


def presets():
    names = set()
    for f in [os.path.join(ROOT, "CMakePresets.json")] + glob.glob(os.path.join(ROOT, "presets", "*.json")):
        doc = json.load(open(f))
        for kind in ("configurePresets", "buildPresets", "testPresets", "workflowPresets"):
            names.update(p["name"] for p in doc.get(kind, []))
    return names


def commands():
    text = open(os.path.join(ROOT, "src", "tools", "commands.cpp")).read()
    text += open(os.path.join(ROOT, "src", "tools", "tune_cli.cpp")).read()
    return set(re.findall(r'add_subcommand\("([a-z-]+)"', text))


def path_exists(path):
    path = path.rstrip(".,:;)")
    if re.search(r"[<>*{}]|\.\.\.|[A-Z]{3,}", path):  # a pattern: <arch>, *.json, ARCH, ...
        pattern = re.sub(r"<[^>]*>|\{[^}]*\}|[A-Z]{3,}[A-Z_]*|\.\.\.", "*", path)
        literal = pattern.split("*")[0].rsplit("/", 1)[0]  # the folder before the placeholder
        return bool(glob.glob(os.path.join(ROOT, pattern))) or os.path.isdir(os.path.join(ROOT, literal))
    return os.path.exists(os.path.join(ROOT, path))


def main():
    known_presets, known_commands = presets(), commands()
    problems = []
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for doc in docs:
        rel = os.path.relpath(doc, ROOT)
        base = os.path.dirname(doc)
        text = open(doc).read()
        line_of = lambda offset: text.count("\n", 0, offset) + 1
        fences = list(re.finditer(r"^```.*?^```", text, re.S | re.M))
        prose = text
        for fence in fences:  # code blocks: whole lines are checked, prose keeps its line numbers
            prose = prose[:fence.start()] + re.sub(r"[^\n]", " ", fence.group(0)) + prose[fence.end():]
        pieces = [(m.start(1), m.group(1)) for m in re.finditer(r"`([^`]+)`", prose)
                  if not re.search(r"'s $", prose[max(0, m.start() - 3):m.start()])]  # vLLM's `tests/...`: another project's
        pieces += [(f.start(), f.group(0)) for f in fences]
        for offset, span in pieces:
            tokens = span.split()
            for i, token in enumerate(tokens):
                token = token.strip("\"'(),;")
                while token.count("}") > token.count("{") and token.endswith("}"):  # {"file": "data/..."}
                    token = token[:-1].rstrip("\"'")
                written = i > 0 and tokens[i - 1] in WRITES  # a file the command makes
                if token.startswith(TOP) and not written and not path_exists(token):
                    problems.append(f"{rel}:{line_of(offset)}: no such path: {token}")
            for name in re.findall(r"--preset[ =]([A-Za-z0-9_-]+)", span):
                if name not in known_presets:
                    problems.append(f"{rel}:{line_of(offset)}: no such preset: {name}")
            for name in re.findall(r"(?:^|[\s/])kattn ([a-z][a-z-]+)\b", span, re.M):
                if name not in known_commands:
                    problems.append(f"{rel}:{line_of(offset)}: no such command: kattn {name}")
        for m in re.finditer(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", prose):
            if not os.path.exists(os.path.normpath(os.path.join(base, m.group(1)))):
                problems.append(f"{rel}:{line_of(m.start())}: broken link: {m.group(1)}")
    for p in problems:
        print(p)
    print(f"check_docs: {len(docs)} documents, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
