#!/usr/bin/env python3
"""The checks of the kill -9 soak (tests/soak/kill9.sh), after every cycle.

  soakcheck.py [tune RESULTS CARD SIZE STDERR STDOUT STATE_DIR] [cache CACHE_DIR]
               [lib STDOUT]
  soakcheck.py selftest      each damage the checks look for is caught

tune: the records RESULTS/CARD/tune-SxSxS.csv are whole rows (the header,
then rows of its column count, every field of its kind, the file ending in
a newline), no variant twice, the file as it was after the previous cycle
plus rows (nothing lost, nothing rewritten), and every evaluation the
killed run printed (`eval:` lines of --verbose, which come before the row
is appended) is in it, but for the last one (in flight).  Best files are
absent or whole (variant, gflops, seconds, rel_err, card, problem,
written, a newline at the end) and name a variant the records hold as ok;
the same for the per-user copy.  No line of the run's stderr is a warning
(a torn or skipped row, the program cache giving up).  cache: every entry
is whole (glhost/progcache.h's header, lengths, checksum).  lib: no call
of the library program failed.

Prints the figures of the checks, one key=value a line, and exits 0, or
also prints each failure on stderr and exits 1."""
import os
import re
import struct
import sys

HEADER = ("card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,tile,ku,order,"
          "passes,status,seconds,gflops,rel_err")
NCOL = len(HEADER.split(","))
STATUSES = {"ok", "invalid", "unsupported", "compile_error", "link_error", "fbo_incomplete",
            "gl_error", "wrong_result", "timeout", "context_lost", "compile_timeout",
            "pruned_bound"}
RC = re.compile(r"^[1-9][0-9]*x[1-9][0-9]*$")
FLOAT = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
FIELDS = {
    "mrt": RC.match, "mc": RC.match,
    "np": lambda s: s == "all" or re.match(r"^[1-9][0-9]*$", s),
    "unroll": lambda s: s in ("0", "1"),
    "profile": lambda s: s in ("120", "330", "300es", "430", "310es"),
    "compiler": lambda s: s in ("glsl", "spirv"),
    "acc": lambda s: s in ("pingpong", "copy", "blend"),
    "store": lambda s: s in ("f32", "f16"),
    "out": lambda s: s in ("rt", "image"),
    "blk": lambda s: s == "-" or RC.match(s),
    "fetch": lambda s: s in ("texture", "texelfetch", "image", "buffer", "ubo"),
    "passes": lambda s: re.match(r"^[0-9]+$", s),
    "status": lambda s: s in STATUSES,
    "seconds": FLOAT.match, "gflops": FLOAT.match,
    "rel_err": lambda s: s == "" or FLOAT.match(s),
}

failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
    return cond


def canonical(row):
    """The canonical variant text of a row, as gen_variant_format writes it."""
    r = dict(zip(HEADER.split(","), row))
    v = ("mrt={mrt},mc={mc},np={np},unroll={unroll},profile={profile},compiler={compiler},"
         "acc={acc},store={store}").format(**r)
    if r["out"] == "image":
        v += ",out=image,blk=" + r["blk"]
    if r["fetch"] != "texture":
        v += ",fetch=" + r["fetch"]
    if r["tile"] != "-":
        v += ",tile=" + r["tile"]
    if r["ku"] != "1":
        v += ",ku=" + r["ku"]
    if r["order"] != "plain":
        v += ",order=" + r["order"]
    return v


def read_records(path, card, size):
    """{variant: status}, the number of rows, the raw bytes (None: no file)."""
    if not os.path.exists(path):
        return {}, 0, None
    data = open(path, "rb").read()
    text = data.decode("utf-8", "replace")
    check(text.endswith("\n"), "%s: does not end in a newline (a torn row)" % path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    check(len(lines) >= 1 and lines[0] == HEADER, "%s: first line is not the header" % path)
    seen = {}
    for no, line in enumerate(lines[1:], start=2):
        f = line.split(",")
        if not check(len(f) == NCOL, "%s: line %d has %d columns, not %d: %r" %
                     (path, no, len(f), NCOL, line)):
            continue
        r = dict(zip(HEADER.split(","), f))
        check(r["card"] == card and r["m"] == r["n"] == r["k"] == str(size),
              "%s: line %d is of another card or size: %r" % (path, no, line))
        for name, ok in FIELDS.items():
            check(ok(r[name]), "%s: line %d: bad %s %r" % (path, no, name, r[name]))
        v = canonical(f)
        check(v not in seen, "%s: line %d: %s twice (first at line %d)" %
              (path, no, v, seen.get(v, (0, 0))[1]))
        seen.setdefault(v, (r["status"], no))
    return {v: s for v, (s, _) in seen.items()}, len(lines) - 1, data


def check_best(path, card, size, records, label):
    """A best file: absent, or whole and naming an ok row of the records."""
    if not os.path.exists(path):
        return "absent"
    text = open(path, "rb").read().decode("utf-8", "replace")
    check(text.endswith("\n"), "%s: %s: no newline at the end (torn)" % (label, path))
    lines = text.split("\n")
    keys = [l.split(":", 1)[0] for l in lines[1:] if l]
    for want in ("gflops", "seconds", "rel_err", "card", "problem", "written"):
        check(want in keys, "%s: %s: no %s line (not whole)" % (label, path, want))
    check(("card: %s" % card) in lines and ("problem: %dx%dx%d" % (size, size, size)) in lines,
          "%s: %s: card or problem line wrong" % (label, path))
    g = [l for l in lines if l.startswith("gflops: ")]
    check(g and FLOAT.match(g[0][8:]) and float(g[0][8:]) > 0,
          "%s: %s: gflops line %r" % (label, path, g[:1]))
    v = lines[0].strip()
    check(records.get(v) == "ok",
          "%s: %s names %s, which the records hold as %s" % (label, path, v, records.get(v)))
    return "whole"


def tune(results, card, size, stderr_path, stdout_path, state_dir):
    size = int(size)
    name = "tune-%dx%dx%d.csv" % (size, size, size)
    path = os.path.join(results, card, name)
    records, rows, data = read_records(path, card, size)

    # Nothing lost or rewritten: the file as the previous check saw it,
    # then rows.
    state = os.path.join(state_dir, name + ".prev")
    prev = open(state, "rb").read() if os.path.exists(state) else b""
    check(data is not None or prev == b"", "%s: gone (it held %d bytes)" % (path, len(prev)))
    cur = data or b""
    check(cur.startswith(prev), "%s: the earlier %d bytes are not kept as they were" %
          (path, len(prev)))
    prev_rows = max(prev.count(b"\n") - 1, 0)
    check(rows >= prev_rows, "%s: %d rows, fewer than the %d before" % (path, rows, prev_rows))
    new = set()
    if cur.startswith(prev):
        for line in cur[len(prev):].decode("utf-8", "replace").split("\n"):
            f = line.split(",")
            if len(f) == NCOL and f[0] != "card":
                new.add(canonical(f))

    # Every evaluation printed (before the finalists) is recorded, but the
    # one in flight; and nothing was recorded that was not evaluated now.
    err = open(stderr_path, "rb").read().decode("utf-8", "replace").split("\n")
    out = open(stdout_path, "rb").read().decode("utf-8", "replace")
    evals = []
    finals = False
    for line in err:
        if line.startswith("tune: re-measuring"):
            finals = True
        if line.startswith("eval: ") and not finals:
            evals.append(line.split(" ")[1] if re.match(r"^eval: \S+ \S+ .* s$", line) else "")
    for i, v in enumerate(evals):
        in_flight = i == len(evals) - 1
        check(v in new or (in_flight and v not in records),
              "%s: evaluated %s (eval %d of %d printed) but it is not in the new rows" %
              (path, v, i + 1, len(evals)))
    check(new <= set(evals), "%s: rows added that no evaluation printed: %s" %
          (path, sorted(new - set(evals))[:3]))
    for line in err:
        check(not line.startswith("warning:") and "going on without it" not in line
              and "torn" not in line,
              "%s: the run warned: %s" % (stderr_path, line))

    best = {}
    for folder, label in ((os.path.join(results, card), "best"),
                          (os.path.join(os.environ.get("XDG_DATA_HOME", "/nonexistent"),
                                        "glgemm", "results", card), "user best")):
        best[label] = check_best(os.path.join(folder, "best-%dx%dx%d.txt" % (size, size, size)),
                                 card, size, records, label)
    tmp = [f for f in os.listdir(os.path.join(results, card))
           if ".tmp-" in f] if os.path.isdir(os.path.join(results, card)) else []

    searched = [m.group(1) for m in (re.match(r"^tune: \w+ search on (\S+) ", l) for l in err) if m]
    for on in searched:
        check(on == card, "%s: the tune searched on card %s, not %s" % (stderr_path, on, card))
    if not searched:
        phase = "startup"
    elif not finals:
        phase = "search"
    elif "best:" not in out:
        phase = "finalists"
    else:
        phase = "end"
    if not failures:
        os.makedirs(state_dir, exist_ok=True)
        with open(state, "wb") as f:
            f.write(cur)
    return {"rows": rows, "new_rows": len(new), "evals_printed": len(evals),
            "in_flight_lost": len(evals) - len(new), "phase": phase,
            "best": best["best"], "user_best": best["user best"], "results_tmp": len(tmp)}


def murmur64a(data, seed):
    m, r, mask = 0xc6a4a7935bd1e995, 47, (1 << 64) - 1
    h = (seed ^ (len(data) * m)) & mask
    n8 = len(data) // 8
    for i in range(n8):
        k = struct.unpack_from("<Q", data, i * 8)[0]
        k = (k * m) & mask
        k ^= k >> r
        k = (k * m) & mask
        h ^= k
        h = (h * m) & mask
    rest = data[n8 * 8:]
    if rest:
        t = 0
        for b in reversed(rest):
            t = (t << 8) | b
        h ^= t
        h = (h * m) & mask
    h ^= h >> r
    h = (h * m) & mask
    h ^= h >> r
    return h


SEED_SUM = 0xc2b2ae3d27d4eb4f


def cache(folder):
    """Every entry whole; temporary files (a write a kill cut short) counted."""
    entries = tmp = 0
    if not os.path.isdir(folder):
        return {"entries": 0, "cache_tmp": 0}
    for f in sorted(os.listdir(folder)):
        p = os.path.join(folder, f)
        if ".tmp-" in f:
            tmp += 1
            continue
        if not check(re.match(r"^[0-9a-f]{16}\.bin$", f), "%s: not an entry's name" % p):
            continue
        d = open(p, "rb").read()
        entries += 1
        if not check(len(d) >= 64 and d[:8] == b"GGPROGBN", "%s: no entry header" % p):
            continue
        ver, _fmt = struct.unpack_from("<II", d, 8)
        rlen, vlen = struct.unpack_from("<II", d, 24)
        blen, csum = struct.unpack_from("<QQ", d, 48)
        check(ver == 1, "%s: version %d" % (p, ver))
        if check(len(d) == 64 + rlen + vlen + blen,
                 "%s: %d bytes, the header says %d" % (p, len(d), 64 + rlen + vlen + blen)):
            check(murmur64a(d[64 + rlen + vlen:], SEED_SUM) == csum, "%s: checksum wrong" % p)
    return {"entries": entries, "cache_tmp": tmp}


def lib(stdout_path):
    text = open(stdout_path, "rb").read().decode("utf-8", "replace")
    lines = text.split("\n")
    oks = sum(1 for l in lines if l.startswith("ok "))
    for l in lines:
        check(not l.startswith("FAIL"), "%s: %s" % (stdout_path, l))
    return {"calls_ok": oks, "done": "done " in text}


def selftest():
    """Each kind of damage the checks are for is caught, and whole files
    pass: the checks can fail."""
    import shutil
    import tempfile
    global failures, checks
    row = ("llvmpipe,16,16,16,{mrt},2x2,all,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,1,ok,"
           "0.0001,0.08,1e-07\n")
    rows = [row.format(mrt=m) for m in ("1x1", "1x2", "2x1", "2x2")]
    var = lambda m: ("mrt=%s,mc=2x2,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                     "store=f32" % m)
    best = ("%s\ngflops: 0.08\nseconds: 0.0001\nrel_err: 1e-07\ncard: llvmpipe\n"
            "problem: 16x16x16\nwritten: 2026-01-01T00:00:00Z\n" % var("1x2"))
    cases = {  # name: (records, best, eval lines, previous records, want failures)
        "whole": (HEADER + "\n" + "".join(rows), best, ["1x1", "1x2", "2x1", "2x2"], "", False),
        "in flight": (HEADER + "\n" + "".join(rows[:3]), best, ["1x1", "1x2", "2x1", "2x2"], "",
                      False),
        "torn row": (HEADER + "\n" + "".join(rows[:3]) + rows[3][:40], best, [], "", True),
        "short row": (HEADER + "\n" + rows[0] + rows[1].replace(",pingpong", ""), best, [], "",
                      True),
        "bad field": (HEADER + "\n" + rows[0].replace(",ok,", ",fine,"), None, [], "", True),
        "duplicate": (HEADER + "\n" + rows[0] + rows[1] + rows[0], best, [], "", True),
        "lost eval": (HEADER + "\n" + "".join(rows[:2]), best, ["1x1", "1x2", "2x1", "2x2"], "",
                      True),
        "row not evaluated": (HEADER + "\n" + "".join(rows), best, ["1x1", "1x2", "2x1"], "",
                              True),
        "rows lost": (HEADER + "\n" + rows[0], None, [], HEADER + "\n" + "".join(rows[:2]), True),
        "row rewritten": (HEADER + "\n" + rows[1] + rows[0], None, [],
                          HEADER + "\n" + rows[0], True),
        "torn best": (HEADER + "\n" + "".join(rows), best[:60], [], "", True),
        "best not recorded": (HEADER + "\n" + rows[0], best, [], "", True),
    }
    bad = 0
    for name, (text, bestf, evals, prev, want) in sorted(cases.items()):
        d = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(d, "res", "llvmpipe"))
            open(os.path.join(d, "res", "llvmpipe", "tune-16x16x16.csv"), "w").write(text)
            if bestf is not None:
                open(os.path.join(d, "res", "llvmpipe", "best-16x16x16.txt"), "w").write(bestf)
            open(os.path.join(d, "err"), "w").write(
                "tune: phase search on llvmpipe\n" +
                "".join("eval: %s ok 0.08 GFLOP/s, 1 rep: rest 0.000 s\n" % var(m) for m in evals))
            open(os.path.join(d, "out"), "w").write("")
            if prev:
                os.makedirs(os.path.join(d, "state"))
                open(os.path.join(d, "state", "tune-16x16x16.csv.prev"), "w").write(prev)
            failures, checks = [], 0
            tune(os.path.join(d, "res"), "llvmpipe", "16", os.path.join(d, "err"),
                 os.path.join(d, "out"), os.path.join(d, "state"))
            if bool(failures) != want:
                bad += 1
                sys.stderr.write("selftest: %s: %s\n" % (name, failures or "not caught"))
        finally:
            shutil.rmtree(d)
    # The cache: a whole entry passes, a changed byte or a cut one does not.
    d = tempfile.mkdtemp()
    try:
        binary = b"\x01\x02\x03binary of the program"
        head = b"GGPROGBN" + struct.pack("<IIQIIIIII", 1, 0x8741, 0, 8, 3, 10, 10, 0, 0)
        entry = head + struct.pack("<QQ", len(binary), murmur64a(binary, SEED_SUM)) + b"llvmpipe4.5" + binary
        for name, data, want in (("whole", entry, False), ("byte", entry[:-1] + b"X", True),
                                 ("cut", entry[:-5], True)):
            open(os.path.join(d, "0123456789abcdef.bin"), "wb").write(data)
            failures, checks = [], 0
            cache(d)
            if bool(failures) != want:
                bad += 1
                sys.stderr.write("selftest: cache %s: %s\n" % (name, failures or "not caught"))
    finally:
        shutil.rmtree(d)
    failures, checks = [], 0
    print("selftest=%s" % ("ok" if bad == 0 else "%d_wrong" % bad))
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["selftest"]:
        return selftest()
    res = {}
    args = argv[1:]
    nargs = {"tune": 6, "cache": 1, "lib": 1}
    fns = {"tune": tune, "cache": cache, "lib": lib}
    if not args:
        sys.stderr.write(__doc__)
        return 2
    while args:
        what = args[0]
        if what not in nargs or len(args) < 1 + nargs[what]:
            sys.stderr.write(__doc__)
            return 2
        res.update(fns[what](*args[1:1 + nargs[what]]))
        args = args[1 + nargs[what]:]
    res["checks"] = checks
    res["failures"] = len(failures)
    for f in failures:
        sys.stderr.write("FAIL: %s\n" % f)
    for k in sorted(res):
        print("%s=%s" % (k, str(res[k]).replace(" ", "_")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
