#!/usr/bin/env python3
"""tests/docs_check.py [GLGEMM]: help that cannot go stale (issue 30).

Reads what the code knows, from the source, and checks that each name is
written where a user looks for it:

  - every variant key and value word of gen's key table (gen/variant.c:
    gen_keys and the value-name arrays) and every preset: in
    `glgemm gen --help`, in docs/variants.md, in glgemm(1);
  - every command's options (the cli_opt table of each cli/cmd_*.c; the
    problem options of cli/options.c for the commands that parse them; the
    common options of cli/options.c): in that command's --help (the common
    ones in `glgemm --help`), in the guides docs/*.md, in glgemm(1);
  - every environment variable the code reads (getenv("...") over base/
    gen/ glhost/ store/ lib/ search/ eval/ report/ cli/, and the GLGEMM_*
    names those layers pass to getenv through a table or a macro): in the
    guides and in the man pages; the GLGEMM_* ones also in some --help
    (GLGEMM_FAULT, for tests only, is exempt there);
  - every function of glgemm.h: in glgemm(3) and docs/library.md.

A gap in a --help text that lives in another engineer's file may be listed
in KNOWN_HELP_GAPS below: it is printed with the line to add, and does not
fail the check; remove it from the list once the line is in.  Every other
gap fails (exit 1), one line each.  GLGEMM defaults to ./glgemm.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ["base", "gen", "glhost", "store", "lib", "search", "eval", "report", "cli"]

# (command or "" for `glgemm --help`, the name) -> the file that prints that
# help and the line to add.  Closed gaps are reported so they can go.
KNOWN_HELP_GAPS = {
}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def c_array(text, name):
    """The string literals of `... name[...] = { ... };`."""
    m = re.search(r"\b" + re.escape(name) + r"\s*\[[^\]]*\]\s*=\s*\{(.*?)\};", text, re.S)
    if not m:
        sys.exit("docs_check: cannot find the array %s" % name)
    return re.findall(r'"([^"]*)"', m.group(1))


def opt_table(text, name=None):
    """Option names of a cli_opt table: the named one, or all in the file."""
    if name:
        m = re.search(r"\b" + re.escape(name) + r"\s*\[\]\s*=\s*\{(.*?)\};", text, re.S)
        text = m.group(1) if m else ""
    return re.findall(r'\{"([a-z][a-z0-9-]*)",\s*[01],\s*OPT_', text)


def flag(name, short=False):
    """How help texts spell it: -o for a command's own one-letter option,
    --m, --a ... for the problem options, --name otherwise."""
    return "-" + name if short and len(name) == 1 else "--" + name


def has_flag(text, name):
    """--name (or -n / --n for one letter) as a whole token."""
    dashes = "--?" if len(name) == 1 else "--"
    return re.search(r"(?<![\w-])" + dashes + re.escape(name) + r"(?![\w-])", text) is not None


def has_word(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def run(binary, args):
    p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60, env=dict(os.environ, GLGEMM_CACHE="off"))
    if p.returncode != 0:
        sys.exit("docs_check: %s %s exited %d: %s" % (binary, " ".join(args), p.returncode,
                                                        p.stderr.decode(errors="replace").strip()))
    return p.stdout.decode(errors="replace")


def man_text(path):
    """The page as text, plus its source with \\- read as -, so a name the
    formatter hyphenated across a line is still found."""
    src = read(path)
    try:
        out = subprocess.run(["groff", "-mdoc", "-Tascii", "-P-cbou", "-rLL=1000n",
                              os.path.join(ROOT, path)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60).stdout.decode(errors="replace")
    except OSError:
        out = ""
    return out + "\n" + src.replace("\\-", "-").replace("\\&", "")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "glgemm")
    variant_c = read("gen/variant.c")
    keys = re.findall(r'\{"([a-z]+)",\s*GG_KEY_[A-Z]+\}', variant_c)
    values = []
    for arr in ["profile_names", "compiler_names", "acc_names", "store_names", "out_names",
                "fetch_names"]:
        values += c_array(variant_c, arr)
    values.append("all")  # np=all
    presets = re.findall(r'\{"([a-z-]+)",\s*\d+,\s*\d+,\s*\d+,\s*\d+,', variant_c) + ["best"]
    if len(keys) < 11 or len(presets) < 5:
        sys.exit("docs_check: gen/variant.c's tables not found (keys %s, presets %s)" % (keys, presets))

    options_c = read("cli/options.c")
    common = opt_table(options_c, "common_opts")
    problem = opt_table(options_c, "problem_opts")
    commands = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "cli", "cmd_*.c"))):
        cmd = os.path.basename(path)[4:-2]
        text = read(os.path.relpath(path, ROOT))
        own = opt_table(text)
        takes_problem = re.search(r"cli_parse\([^;]*,\s*true\s*,", text, re.S) is not None
        commands[cmd] = [(o, True) for o in own] + [(o, False) for o in
                                                     (problem if takes_problem else [])]

    env = set()
    for layer in LAYERS:
        for path in glob.glob(os.path.join(ROOT, layer, "*.[ch]")):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            env.update(re.findall(r'getenv\("([A-Z_][A-Z0-9_]*)"\)', text))
            env.update(re.findall(r'"(GLGEMM_[A-Z0-9_]+)"', text))
    functions = sorted(set(re.findall(r"GLGEMM_API[^;(]*?\b(glgemm_[a-z_]+)\s*\(", read("glgemm.h"))))

    guides = ""
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        guides += read(os.path.relpath(path, ROOT)) + "\n"
    variants_md = read("docs/variants.md")
    library_md = read("docs/library.md")
    man1 = man_text("docs/man/glgemm.1")
    man3 = man_text("docs/man/glgemm.3")

    helps = {"": run(binary, ["--help"])}
    for cmd in commands:
        helps[cmd] = run(binary, [cmd, "--help"])
    all_help = "\n".join(helps.values())

    gaps, known, checked = [], [], 0

    def need(ok, what, where, key=None):
        nonlocal checked
        checked += 1
        if ok:
            if key in KNOWN_HELP_GAPS:
                known.append("closed (remove it from KNOWN_HELP_GAPS): %s in %s" % (key[1], where))
            return
        if key is not None and key in KNOWN_HELP_GAPS:
            fix = KNOWN_HELP_GAPS[key]
            if fix:
                known.append("%s: missing %s; add to the usage text of %s:\n      %s"
                             % (where, key[1], fix[0], fix[1].replace("\n", "\n      ")))
            return
        gaps.append("%s: missing %s" % (where, what))

    for k in keys:
        need(has_word(helps["gen"], k), "variant key %s" % k, "glgemm gen --help")
        need(re.search(r"`" + k + r"`", variants_md), "variant key `%s`" % k, "docs/variants.md")
        need(has_word(man1, k), "variant key %s" % k, "glgemm(1)")
    for v in values:
        need(has_word(helps["gen"], v), "variant value %s" % v, "glgemm gen --help")
        need(re.search(r"`" + re.escape(v) + r"`", variants_md), "variant value `%s`" % v,
             "docs/variants.md")
        need(has_word(man1, v), "variant value %s" % v, "glgemm(1)")
    for p in presets:
        need(has_word(helps["gen"], p), "preset %s" % p, "glgemm gen --help")
        need(re.search(r"`" + p + r"`", variants_md), "preset `%s`" % p, "docs/variants.md")
        need(has_word(man1, p), "preset %s" % p, "glgemm(1)")

    for o in common:
        need(has_flag(helps[""], o), "common option %s" % flag(o), "glgemm --help", ("", flag(o)))
        need(has_flag(guides, o), "option %s" % flag(o), "docs/*.md")
        need(has_flag(man1, o), "option %s" % flag(o), "glgemm(1)")
    for cmd, opts in sorted(commands.items()):
        for o, short in opts:
            f = flag(o, short)
            need(has_flag(helps[cmd], o), "option %s" % f, "glgemm %s --help" % cmd, (cmd, f))
            need(has_flag(guides, o), "option %s (of %s)" % (f, cmd), "docs/*.md")
            need(has_flag(man1, o), "option %s (of %s)" % (f, cmd), "glgemm(1)")

    for e in sorted(env):
        need(has_word(guides, e), "environment variable %s" % e, "docs/*.md")
        need(has_word(man1 + man3, e), "environment variable %s" % e, "the man pages")
        if e.startswith("GLGEMM_") and e != "GLGEMM_FAULT":
            need(has_word(all_help, e), "environment variable %s" % e, "any --help", ("", e))

    for fn in functions:
        need(has_word(man3, fn), "function %s" % fn, "glgemm(3)")
        need(has_word(library_md, fn), "function %s" % fn, "docs/library.md")

    for line in known:
        print("docs_check: known gap (another engineer's file): " + line)
    for line in gaps:
        print("docs_check: " + line)
    print("docs_check: %d names checked (%d keys, %d values, %d presets, %d commands' options, "
          "%d environment variables, %d functions): %d gaps, %d known"
          % (checked, len(keys), len(values), len(presets), len(commands), len(env),
             len(functions), len(gaps), len([k for k in known if not k.startswith("closed")])))
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
