// qpscope: parse the command line, run one subcommand, map errors to exit codes.
#include "commands/run.hpp"

int main(int argc, char** argv) { return qps::commands::run(argc, argv); }
