# What the qpscope-mesh lab cases (cases/90-mesh.sh, cases/91-mesh-faults.sh)
# share: the binary, the schema, Open MPI as root, the ASan options and the
# helpers. Sourced by them; mesh_done puts ASAN_OPTIONS back.
mesh=$(dirname "$q")/qpscope-mesh
mesh_schema=$here/../../docs/schema/qpscope-mesh.schema.json
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The ASan build: Open MPI still holds its own allocations at exit, which
# LeakSanitizer would count as ours; and its start frees so much that ASan's
# default 256 MB quarantine makes each rank 660 MB resident (16 MB without
# ASan): a smaller quarantine keeps 4 ranks in the lab's memory.
# --bind-to none: 2 CPUs, up to 4 ranks.
# Open MPI's start loads hwloc's topology, whose PCI component reads the
# PCI ID database through libpciaccess, growing its buffer by realloc:
# under ASan every realloc copies, 419,000 page faults and 570 MB resident
# for MPI_Init alone (perf record -e page-faults, on the host), 12 s of each
# rank's start in the emulated guest. --bind-to none needs no PCI locality,
# and none of our code asks hwloc anything: the component is left out.
export HWLOC_COMPONENTS=-pci
mesh_saved_asan=${ASAN_OPTIONS-unset}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:quarantine_size_mb=8:malloc_context_size=5"
mpi() {
  timeout 600 mpirun --oversubscribe --bind-to none "$@"
}
# valid_mesh FILE: validates against docs/schema/qpscope-mesh.schema.json
valid_mesh() {
  /usr/bin/python3 - "$mesh_schema" "$1" <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}
jqf() { jq -r "$1" "$2"; }  # FILTER FILE
short=(--lat-iters 200 --bw-iters 200 -w 20)
mesh_done() {
  if [ "$mesh_saved_asan" = unset ]; then unset ASAN_OPTIONS; else export ASAN_OPTIONS=$mesh_saved_asan; fi
  unset HWLOC_COMPONENTS
}
