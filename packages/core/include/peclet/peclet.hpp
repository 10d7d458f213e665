/// The peclet teardown kernel for Node-API addons: include this one header.
/// See packages/core/README.md for the lifecycle and the exit contract.
#pragma once

#include "args.hpp"
#include "async.hpp"
#include "env.hpp"
#include "errors.hpp"
#include "exit_gate.hpp"
#include "install.hpp"
#include "kernel_error.hpp"
#include "ledger.hpp"
#include "memory.hpp"
#include "object.hpp"
#include "runtime.hpp"
#include "thread_pool.hpp"
#include "trace.hpp"
