#include "mpi/collector.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

#include "formatters/mesh.hpp"
#include "formatters/mesh_svg.hpp"
#include "mpi/world.hpp"
#include "src/net/interrupt.hpp"
#include "src/util/json_text.hpp"

namespace qps::mpi {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds output_interval{5};

// Written whole, then renamed: a reader never sees half a document.
void write_file(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << text;
        if (!out) {
            std::cerr << fmt::format("qpscope-mesh: cannot write {}\n", tmp);
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        std::cerr << fmt::format("qpscope-mesh: cannot rename {} to {}\n", tmp, path);
}

}  // namespace

Collector::Collector(mesh::MeshOptions o, mesh::MeshReport r) : options_(std::move(o)), report_(std::move(r))
{
    for (std::size_t round = 0; round < report_.schedule.rounds.size(); ++round)
        for (const mesh::Pair& p : report_.schedule.rounds[round]) {
            index_[{p.a, p.b}] = report_.results.size();
            mesh::PairResult pr;
            pr.pair = p;
            pr.round = static_cast<std::uint32_t>(round);
            report_.results.push_back(pr);
        }
}

void Collector::add(const mesh::PairResult& side)
{
    const auto it = index_.find({side.pair.a, side.pair.b});
    if (it == index_.end())
        return;
    mesh::PairResult& base = report_.results[it->second];
    if (base.status == mesh::PairStatus::not_run)
        base = side;
    else
        mesh::merge_sides(base, side);
}

void Collector::lost(std::uint32_t round, std::uint32_t rank, const std::string& why)
{
    for (auto& p : report_.results)
        if (p.round == round && (p.pair.a == rank || p.pair.b == rank) && p.status != mesh::PairStatus::failed) {
            p.status = mesh::PairStatus::failed;
            p.cause = why;
        }
}

void Collector::round_done(const mesh::RoundTiming& t)
{
    report_.timings.push_back(t);
    report_.rounds_done = static_cast<std::uint32_t>(report_.timings.size());
    if (Clock::now() - last_write_ >= output_interval)
        write_output();
}

void Collector::stop(const std::string& why)
{
    report_.stopped = why;
    write_output();
}

int Collector::finish()
{
    report_.complete = report_.stopped.empty() && report_.rounds_done == report_.schedule.rounds.size();
    const mesh::Analysis a = mesh::analyse(report_, options_.threshold, options_.expect);
    write_output();
    if (!options_.svg_path.empty())
        write_file(options_.svg_path, formatters::mesh_svg(report_, mesh::svg_metric_of(options_)));
    if (options_.json)
        std::cout << util::json_text(formatters::mesh_json(report_, a, options_), 2) << '\n';
    else
        std::cout << formatters::mesh_text(report_, a, options_);
    std::cout.flush();
    if (!report_.stopped.empty())
        return net::interrupt_pending() ? exit_interrupted : exit_lost;
    return a.healthy() ? 0 : exit_failed;
}

void Collector::write_output()
{
    if (options_.output_path.empty())
        return;
    last_write_ = Clock::now();
    const mesh::Analysis a = mesh::analyse(report_, options_.threshold, options_.expect);
    write_file(options_.output_path, util::json_text(formatters::mesh_json(report_, a, options_), 2) + "\n");
}

}  // namespace qps::mpi
