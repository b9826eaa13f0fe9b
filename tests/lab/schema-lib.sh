# The JSON Schema validator of the lab's case files: every --json document a
# case checks validates against its schema in docs/schema/
# (python3-jsonschema, Draft 2020-12). Sourced by a case file (80-schemas,
# 42-connect) with $here set; it ends with sch_done.

sch_dir=$(cd "$here/../../docs/schema" && pwd)
sch_tmp=$(mktemp -d)
# Debian's python3 has python3-jsonschema (scripts/install-deps); another
# python3 first in PATH may not.
sch_py=python3
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import jsonschema' 2>/dev/null; then sch_py=$p; break; fi
done
# The validator: one python3 process for the whole case file (a python3
# with jsonschema takes seconds to start in the emulated guest), fed one
# request per line, "SCHEMA<TAB>FILE<TAB>[--lines]", on its stdin. It checks
# every document in FILE (one, or one per line with --lines) against SCHEMA,
# prints each error's path and message, then "@@end 0" (valid) or "@@end 1".
sch_validator='
import json, sys
import jsonschema
from jsonschema.exceptions import best_match
validators = {}
def check(schema_file, doc_file, lines):
    if schema_file not in validators:
        schema = json.load(open(schema_file))
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators[schema_file] = cls(schema)
    validator = validators[schema_file]
    text = open(doc_file).read()
    try:
        docs = [json.loads(l) for l in text.splitlines() if l.strip()] if lines else [json.loads(text)]
    except ValueError as e:
        return f"not JSON: {e}"
    if not docs:
        return "no JSON document"
    def where(e):
        return "/" + "/".join(str(p) for p in e.absolute_path)
    failed = 0
    for n, doc in enumerate(docs, 1):
        for e in sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
            failed += 1
            msg = e.message if len(e.message) <= 200 else e.message[:200] + "..."
            if e.context:
                b = best_match(e.context)
                msg += f" (closest: {b.message[:200]} at {where(b)})"
            rule = "/" + "/".join(str(p) for p in e.absolute_schema_path)
            print(f"document {n}, at {where(e)}: {msg} [schema: {rule}]")
    if failed:
        return f"{failed} error(s) against {schema_file}"
    print(f"{len(docs)} document(s) valid against {schema_file}")
    return None
for request in sys.stdin:
    schema_file, doc_file, lines = request.rstrip("\n").split("\t")
    try:
        problem = check(schema_file, doc_file, lines == "--lines")
    except Exception as e:  # a bad schema or an unreadable file is a failed check, not a dead validator
        problem = f"{type(e).__name__}: {e}"
    if problem:
        print(problem)
    print(f"@@end {1 if problem else 0}", flush=True)
'
coproc SCH { "$sch_py" -u -c "$sch_validator"; }
# expect_valid_file SCHEMA-NAME FILE [--lines]: FILE validates against docs/schema/SCHEMA-NAME.schema.json.
expect_valid_file() {
  local name=$1 file=$2 report='' line status=''
  printf '%s\t%s\t%s\n' "$sch_dir/$name.schema.json" "$file" "${3:-}" >&"${SCH[1]}"
  while IFS= read -r line <&"${SCH[0]}"; do
    if [[ $line == "@@end "* ]]; then status=${line#@@end }; break; fi
    report+=$line$'\n'
  done
  if [ "$status" = 0 ]; then
    ok "valid against $name.schema.json"
  else
    [ -n "$status" ] || report+="(the validator ended without an answer)"$'\n'
    bad "not valid against $name.schema.json"
    sed 's/^/        /' <<<"$report"
  fi
}
# expect_valid SCHEMA-NAME [--lines]: the last run's stdout validates.
expect_valid() {
  printf '%s\n' "$out" >"$sch_tmp/stdout.json"
  expect_valid_file "$1" "$sch_tmp/stdout.json" "${@:2}"
}
# sch_done: the validator ends, its scratch goes.
sch_done() {
  kill "$SCH_PID" 2>/dev/null
  rm -rf "$sch_tmp"
}
