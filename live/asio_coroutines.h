#pragma once
// Boost.Asio with C++20 coroutines, as live mode's processes use it. Boost
// 1.74 turns co_await support on for clang only when
// <experimental/coroutine> exists, which libstdc++ 12 lacks; the two macros
// say what is true on every compiler we build with. g++ 12 needs <utility>
// before Asio's awaitable.hpp.

#ifndef BOOST_ASIO_HAS_CO_AWAIT
#define BOOST_ASIO_HAS_CO_AWAIT 1
#endif
#ifndef BOOST_ASIO_HAS_STD_COROUTINE
#define BOOST_ASIO_HAS_STD_COROUTINE 1
#endif

#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace locksim::live {
namespace asio = boost::asio;
}  // namespace locksim::live
