// qpscope-mesh: every pair of a cluster's nodes, started by mpirun or srun.
#include "mesh/run.hpp"

int main(int argc, char** argv) { return qps::mesh::mpi::run(argc, argv); }
