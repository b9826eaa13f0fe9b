// qpscope-mesh: every pair of a cluster's nodes, started by mpirun or srun.
#include "mpi/run.hpp"

int main(int argc, char** argv) { return qps::mpi::run(argc, argv); }
