#include "src/util/spool.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>

namespace qps::util {

namespace {

void put_u64(std::string& out, std::uint64_t v)
{
    char b[8];
    std::memcpy(b, &v, sizeof b);
    out.append(b, sizeof b);
}

std::uint64_t get_u64(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

[[noreturn]] void spool_failed(const char* what)
{
    throw std::system_error(errno ? errno : EIO, std::generic_category(),
                            std::string("the temporary file of the lines put aside: ") + what);
}

// The records of `buf` (complete ones only) to `f`; the bytes it used.
std::size_t replay(std::string_view buf, const std::function<void(std::uint64_t, std::string_view)>& f)
{
    std::size_t at = 0;
    while (buf.size() - at >= 16) {
        const std::uint64_t number = get_u64(buf.data() + at), len = get_u64(buf.data() + at + 8);
        if (buf.size() - at - 16 < len)
            break;
        f(number, buf.substr(at + 16, len));
        at += 16 + len;
    }
    return at;
}

}  // namespace

Spool::Spool(std::size_t in_memory) : limit_(in_memory) {}

Spool::~Spool()
{
    if (file_)
        std::fclose(file_);
}

void Spool::add(std::uint64_t number, std::string_view text)
{
    put_u64(memory_, number);
    put_u64(memory_, text.size());
    memory_.append(text);
    ++count_;
    if (memory_.size() >= limit_)
        spill();
}

void Spool::spill()
{
    if (!file_) {
        errno = 0;
        file_ = std::tmpfile();
        if (!file_)
            spool_failed("tmpfile");
    }
    errno = 0;
    if (std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size())
        spool_failed("write");
    memory_.clear();
}

void Spool::each(const std::function<void(std::uint64_t, std::string_view)>& f)
{
    if (file_) {
        errno = 0;
        if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
            spool_failed("rewind");
        std::string buf;
        char chunk[1 << 16];
        for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, file_)) > 0;) {
            buf.append(chunk, got);
            buf.erase(0, replay(buf, f));
        }
        if (std::ferror(file_))
            spool_failed("read");
        std::fseek(file_, 0, SEEK_END);
    }
    replay(memory_, f);
}

}  // namespace qps::util
