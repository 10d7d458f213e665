// @peclet/mpi's addon: the MPI calls of the JS API on MPI_COMM_WORLD, errors
// returned instead of fatal, and MPI_Finalize / MPI_Abort run by the module's
// finalize (src/index.ts decides which, from the exit path). Arguments are
// checked in TypeScript; this file checks again what would be unsafe.
// The C API only: no MPI C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <peclet/peclet.hpp>
#include <stdexcept>
#include <string>

namespace {

// MPI is one per process: initialized once, finalized once, never again.
std::atomic<bool> gInitialized{false};
std::atomic<bool> gFinalized{false};
int gProvided = MPI_THREAD_SINGLE;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

void requireLive(const char* what) {
  if (!gInitialized.load()) throw std::runtime_error(std::string(what) + ": MPI is not initialized; call init() first");
  if (gFinalized.load()) throw std::runtime_error(std::string(what) + ": MPI was finalized");
}

// Open MPI loads its components with dlopen and they look for libmpi's
// symbols globally; an addon is opened RTLD_LOCAL, so make libmpi global.
void promoteLibmpi() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) != 0 && info.dli_fname != nullptr) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

struct Buffer {
  void* data = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
};

Buffer bufferOf(const Napi::Value& value, const char* argument) {
  if (!value.IsTypedArray()) {
    throw peclet::KernelArgumentError(true, argument, -1, "must be a typed array");
  }
  auto array = value.As<Napi::TypedArray>();
  Buffer b;
  switch (array.TypedArrayType()) {
    case napi_float64_array:
      b.type = MPI_DOUBLE;
      break;
    case napi_float32_array:
      b.type = MPI_FLOAT;
      break;
    case napi_int32_array:
      b.type = MPI_INT32_T;
      break;
    case napi_uint32_array:
      b.type = MPI_UINT32_T;
      break;
    case napi_int16_array:
      b.type = MPI_INT16_T;
      break;
    case napi_uint16_array:
      b.type = MPI_UINT16_T;
      break;
    case napi_int8_array:
      b.type = MPI_INT8_T;
      break;
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      b.type = MPI_UINT8_T;
      break;
    case napi_bigint64_array:
      b.type = MPI_INT64_T;
      break;
    case napi_biguint64_array:
      b.type = MPI_UINT64_T;
      break;
    default:
      throw peclet::KernelArgumentError(true, argument, -1, "has an element type MPI cannot carry");
  }
  const std::size_t length = array.ElementLength();
  if (length > static_cast<std::size_t>(INT32_MAX)) {
    throw peclet::KernelArgumentError(false, argument, -1, "holds more than 2^31 - 1 elements, MPI's count limit");
  }
  b.count = static_cast<int>(length);
  // The typed array's own data pointer (its offset included): unlike ArrayBuffer().Data() it
  // also answers for a view of a SharedArrayBuffer.
  void* data = nullptr;
  napi_status status = napi_get_typedarray_info(array.Env(), array, nullptr, nullptr, &data, nullptr, nullptr);
  if (status != napi_ok) throw peclet::KernelArgumentError(true, argument, -1, "could not be read as a typed array");
  b.data = length == 0 ? nullptr : static_cast<char*>(data);
  return b;
}

int intArg(const Napi::CallbackInfo& info, std::size_t i, const char* argument) {
  if (info.Length() <= i || !info[i].IsNumber())
    throw peclet::KernelArgumentError(true, argument, -1, "must be an integer");
  return info[i].As<Napi::Number>().Int32Value();
}

Napi::Value statusObject(Napi::Env env, const MPI_Status& status, MPI_Datatype type) {
  int count = 0;
  MPI_Get_count(&status, type, &count);
  Napi::Object o = Napi::Object::New(env);
  o.Set("source", Napi::Number::New(env, status.MPI_SOURCE));
  o.Set("tag", Napi::Number::New(env, status.MPI_TAG));
  o.Set("count", Napi::Number::New(env, count));
  return o;
}

Napi::Value Init(const Napi::CallbackInfo& info) {
  const int wanted = intArg(info, 0, "threadLevel");
  if (gFinalized.load()) throw std::runtime_error("MPI was finalized and cannot be initialized again in this process");
  if (gInitialized.load()) throw std::runtime_error("MPI is already initialized");
  int already = 0;
  MPI_Initialized(&already);
  if (already != 0) throw std::runtime_error("MPI was initialized by someone else in this process");
  promoteLibmpi();
  int provided = MPI_THREAD_SINGLE;
  check(MPI_Init_thread(nullptr, nullptr, wanted, &provided), "MPI_Init_thread");
  // Errors come back as codes, then JS errors, instead of ending the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  gProvided = provided;
  gInitialized.store(true);
  return Napi::Number::New(info.Env(), provided);
}

Napi::Value State(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("initialized", gInitialized.load());
  o.Set("finalized", gFinalized.load());
  o.Set("threadLevel", Napi::Number::New(info.Env(), gProvided));
  return o;
}

Napi::Value Rank(const Napi::CallbackInfo& info) {
  requireLive("rank");
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  return Napi::Number::New(info.Env(), rank);
}

Napi::Value Size(const Napi::CallbackInfo& info) {
  requireLive("size");
  int size = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return Napi::Number::New(info.Env(), size);
}

Napi::Value Barrier(const Napi::CallbackInfo& info) {
  requireLive("barrier");
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return info.Env().Undefined();
}

Napi::Value Allreduce(const Napi::CallbackInfo& info) {
  requireLive("allreduce");
  Buffer b = bufferOf(info[0], "values");
  const int op = intArg(info, 1, "op");
  MPI_Op mpiOp = op == 0 ? MPI_SUM : op == 1 ? MPI_MIN : op == 2 ? MPI_MAX : MPI_PROD;
  check(MPI_Allreduce(MPI_IN_PLACE, b.data, b.count, b.type, mpiOp, MPI_COMM_WORLD), "MPI_Allreduce");
  return info.Env().Undefined();
}

Napi::Value Send(const Napi::CallbackInfo& info) {
  requireLive("send");
  Buffer b = bufferOf(info[0], "values");
  check(MPI_Send(b.data, b.count, b.type, intArg(info, 1, "dest"), intArg(info, 2, "tag"), MPI_COMM_WORLD), "MPI_Send");
  return info.Env().Undefined();
}

Napi::Value Recv(const Napi::CallbackInfo& info) {
  requireLive("recv");
  Buffer b = bufferOf(info[0], "into");
  const int source = intArg(info, 1, "source");
  const int tag = intArg(info, 2, "tag");
  MPI_Status status;
  check(MPI_Recv(b.data, b.count, b.type, source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag,
                 MPI_COMM_WORLD, &status),
        "MPI_Recv");
  return statusObject(info.Env(), status, b.type);
}

Napi::Value Sendrecv(const Napi::CallbackInfo& info) {
  requireLive("sendrecv");
  Buffer out = bufferOf(info[0], "values");
  const int dest = intArg(info, 1, "dest");
  const int sendTag = intArg(info, 2, "sendTag");
  Buffer in = bufferOf(info[3], "into");
  const int source = intArg(info, 4, "source");
  const int recvTag = intArg(info, 5, "recvTag");
  MPI_Status status;
  check(
      MPI_Sendrecv(out.data, out.count, out.type, dest, sendTag, in.data, in.count, in.type,
                   source < 0 ? MPI_ANY_SOURCE : source, recvTag < 0 ? MPI_ANY_TAG : recvTag, MPI_COMM_WORLD, &status),
      "MPI_Sendrecv");
  return statusObject(info.Env(), status, in.type);
}

Napi::Value Abort(const Napi::CallbackInfo& info) {
  const int code = intArg(info, 0, "code");
  if (!gInitialized.load() || gFinalized.load()) return info.Env().Undefined();
  if (peclet::traceEnabled()) peclet::traceLine("peclet:mpi MPI_Abort(" + std::to_string(code) + ")");
  MPI_Abort(MPI_COMM_WORLD, code);
  return info.Env().Undefined();
}

Napi::Value FinalizeMpi(const Napi::CallbackInfo& info) {
  if (!gInitialized.load() || gFinalized.exchange(true)) return Napi::Boolean::New(info.Env(), false);
  if (peclet::traceEnabled()) peclet::traceLine("peclet:mpi MPI_Finalize");
  check(MPI_Finalize(), "MPI_Finalize");
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  peclet::install(env, exports, {"mpi"});
  exports.Set("init", peclet::Function(env, "init", Init));
  exports.Set("state", peclet::Function(env, "state", State));
  exports.Set("rank", peclet::Function(env, "rank", Rank));
  exports.Set("size", peclet::Function(env, "size", Size));
  exports.Set("barrier", peclet::Function(env, "barrier", Barrier));
  exports.Set("allreduce", peclet::Function(env, "allreduce", Allreduce));
  exports.Set("send", peclet::Function(env, "send", Send));
  exports.Set("recv", peclet::Function(env, "recv", Recv));
  exports.Set("sendrecv", peclet::Function(env, "sendrecv", Sendrecv));
  exports.Set("abort", peclet::Function(env, "abort", Abort));
  exports.Set("finalizeMpi", peclet::Function(env, "finalizeMpi", FinalizeMpi));
  Napi::Object threadLevels = Napi::Object::New(env);
  threadLevels.Set("single", Napi::Number::New(env, MPI_THREAD_SINGLE));
  threadLevels.Set("funneled", Napi::Number::New(env, MPI_THREAD_FUNNELED));
  threadLevels.Set("serialized", Napi::Number::New(env, MPI_THREAD_SERIALIZED));
  threadLevels.Set("multiple", Napi::Number::New(env, MPI_THREAD_MULTIPLE));
  exports.Set("threadLevels", threadLevels);
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
