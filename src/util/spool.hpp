// Records put aside and read back in order: (number, text) pairs held in
// memory up to a limit, past it in an unnamed temporary file (tmpfile(3),
// gone when closed), so what is put aside does not grow the memory.
// `explain --log` keeps a log's unattributed lines here until its report
// lists them after the attributed ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace qps::util {

class Spool {
public:
    explicit Spool(std::size_t in_memory = std::size_t{1} << 20);
    ~Spool();
    Spool(const Spool&) = delete;
    Spool& operator=(const Spool&) = delete;

    // No temporary file to be had, or a write to it failed:
    // std::system_error naming the file and why.
    void add(std::uint64_t number, std::string_view text);
    std::size_t size() const { return count_; }
    // Every record, in the order added.
    void each(const std::function<void(std::uint64_t, std::string_view)>& f);

private:
    void spill();

    std::size_t limit_;
    std::string memory_;  // records: the number (8 bytes), the text's length (8), its bytes
    std::FILE* file_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace qps::util
