#include "kattn/io/hdf5_file.hpp"

#include "kattn/core/error.hpp"

#include <hdf5.h>

#include <algorithm>
#include <filesystem>

namespace kattn::h5 {
namespace {

// HDF5 prints its own error stack by default; kattn reports errors as exceptions instead.
void silence_hdf5() {
  static const bool silenced = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
  (void)silenced;
}

std::shared_ptr<const void> own(hid_t id, herr_t (*close)(hid_t)) {
  return std::shared_ptr<const void>(new hid_t(id), [close](const void* p) {
    const hid_t* handle = static_cast<const hid_t*>(p);
    if (*handle >= 0) close(*handle);
    delete handle;
  });
}

constexpr double kMaxExpansion = 1100.0;          // uncompressed bytes per stored byte, at most
constexpr double kUnstoredBytes = 1 << 20;        // what an unallocated dataset (fill values) may declare
constexpr std::size_t kMaxStringBytes = 1 << 20;  // a string attribute (names, descriptions)

struct Scoped {  // a temporary HDF5 handle closed at scope exit
  hid_t id;
  herr_t (*close)(hid_t);
  ~Scoped() {
    if (id >= 0) close(id);
  }
};

// A corrupt header can declare element types HDF5's conversions overrun (an integer of 256 MiB,
// a float whose fields exceed its size); kattn and h5py write only the standard ones.
bool standard_type(hid_t type) {
  // The macros call H5open(): an array, not an initializer_list.
  const hid_t standards[] = {H5T_STD_I8LE,  H5T_STD_I16LE,  H5T_STD_I32LE,  H5T_STD_I64LE,  H5T_STD_U8LE,
                             H5T_STD_U16LE, H5T_STD_U32LE,  H5T_STD_U64LE,  H5T_STD_I8BE,   H5T_STD_I16BE,
                             H5T_STD_I32BE, H5T_STD_I64BE,  H5T_STD_U8BE,   H5T_STD_U16BE,  H5T_STD_U32BE,
                             H5T_STD_U64BE, H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_IEEE_F32BE, H5T_IEEE_F64BE};
  for (hid_t standard : standards)
    if (H5Tequal(type, standard) > 0) return true;
  return false;
}

template <class T>
hid_t memory_type();
template <>
hid_t memory_type<float>() {
  return H5T_NATIVE_FLOAT;
}
template <>
hid_t memory_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t memory_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}

}  // namespace

std::int64_t Group::id() const {
  if (!handle_) throw FileFormatError(where_, "used after close");
  return *static_cast<const hid_t*>(handle_.get());
}

Group Group::create_group(const std::string& name) const {
  const hid_t g = H5Gcreate2(id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) throw FileFormatError(where_, "cannot create group '" + name + "'");
  return Group(own(g, H5Gclose), where_ + (where_.back() == '/' ? "" : "/") + name);
}

Group Group::open_group(const std::string& name) const {
  if (!contains(name)) throw FileFormatError(where_, "has no group '" + name + "'");
  const hid_t g = H5Gopen2(id(), name.c_str(), H5P_DEFAULT);
  if (g < 0) throw FileFormatError(where_, "'" + name + "' is not a group");
  return Group(own(g, H5Gclose), where_ + (where_.back() == '/' ? "" : "/") + name);
}

bool Group::contains(const std::string& name) const { return H5Lexists(id(), name.c_str(), H5P_DEFAULT) > 0; }

std::vector<std::string> Group::children() const {
  std::vector<std::string> names;
  H5G_info_t info;
  if (H5Gget_info(id(), &info) < 0) throw FileFormatError(where_, "cannot list members");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(id(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (length < 0) throw FileFormatError(where_, "cannot read a member name");
    std::string name(std::size_t(length) + 1, '\0');
    H5Lget_name_by_idx(id(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(std::size_t(length));
    names.push_back(name);
  }
  return names;
}

namespace {

void write_scalar_attribute(hid_t target, const std::string& where, const std::string& name, hid_t type,
                            const void* value) {
  Scoped space{H5Screate(H5S_SCALAR), H5Sclose};
  Scoped attr{H5Acreate2(target, name.c_str(), type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  if (attr.id < 0 || H5Awrite(attr.id, type, value) < 0)
    throw FileFormatError(where, "cannot write attribute '" + name + "'");
}

// H5Aread writes every element of an attribute's dataspace; kattn reads one value.
void require_single_value(hid_t attr, const std::string& where, const std::string& name) {
  Scoped space{H5Aget_space(attr), H5Sclose};
  if (H5Sget_simple_extent_npoints(space.id) != 1)
    throw FileFormatError(where, "attribute '" + name + "' is not a single value");
}

template <class T>
T read_scalar_attribute(hid_t target, const std::string& where, const std::string& name, hid_t type) {
  if (H5Aexists(target, name.c_str()) <= 0) throw FileFormatError(where, "has no attribute '" + name + "'");
  Scoped attr{H5Aopen(target, name.c_str(), H5P_DEFAULT), H5Aclose};
  require_single_value(attr.id, where, name);
  Scoped file_type{H5Aget_type(attr.id), H5Tclose};
  const H5T_class_t cls = H5Tget_class(file_type.id);
  if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || !standard_type(file_type.id))
    throw FileFormatError(where, "attribute '" + name + "' is not a number");
  T value{};
  if (H5Aread(attr.id, type, &value) < 0) throw FileFormatError(where, "cannot read attribute '" + name + "'");
  return value;
}

}  // namespace

void Group::write_attribute(const std::string& name, double value) const {
  write_scalar_attribute(id(), where_, name, H5T_NATIVE_DOUBLE, &value);
}
void Group::write_attribute(const std::string& name, std::int64_t value) const {
  write_scalar_attribute(id(), where_, name, H5T_NATIVE_INT64, &value);
}
void Group::write_attribute(const std::string& name, const std::string& value) const {
  Scoped type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type.id, std::max<std::size_t>(value.size(), 1));
  H5Tset_strpad(type.id, H5T_STR_NULLPAD);
  write_scalar_attribute(id(), where_, name, type.id, value.c_str());
}

bool Group::has_attribute(const std::string& name) const { return H5Aexists(id(), name.c_str()) > 0; }

double Group::read_double(const std::string& name) const {
  return read_scalar_attribute<double>(id(), where_, name, H5T_NATIVE_DOUBLE);
}
std::int64_t Group::read_int(const std::string& name) const {
  return read_scalar_attribute<std::int64_t>(id(), where_, name, H5T_NATIVE_INT64);
}

std::string Group::read_string(const std::string& name) const {
  if (!has_attribute(name)) throw FileFormatError(where_, "has no attribute '" + name + "'");
  Scoped attr{H5Aopen(id(), name.c_str(), H5P_DEFAULT), H5Aclose};
  require_single_value(attr.id, where_, name);
  Scoped type{H5Aget_type(attr.id), H5Tclose};
  if (H5Tget_class(type.id) != H5T_STRING) throw FileFormatError(where_, "attribute '" + name + "' is not a string");
  if (H5Tis_variable_str(type.id) > 0) {  // as h5py writes str attributes
    Scoped memory{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(memory.id, H5T_VARIABLE);
    char* text = nullptr;
    if (H5Aread(attr.id, memory.id, &text) < 0) throw FileFormatError(where_, "cannot read attribute '" + name + "'");
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
  }
  if (H5Tget_size(type.id) > kMaxStringBytes)
    throw FileFormatError(where_, "attribute '" + name + "' is too long (corrupt)");
  std::string value(H5Tget_size(type.id), '\0');
  if (H5Aread(attr.id, type.id, value.data()) < 0)
    throw FileFormatError(where_, "cannot read attribute '" + name + "'");
  value.resize(std::min(value.size(), value.find('\0')));
  return value;
}

template <class T>
void Group::write(const std::string& name, const std::vector<T>& values, const Dims& dims) const {
  std::vector<hsize_t> shape(dims.begin(), dims.end());
  hsize_t count = 1;
  for (hsize_t d : shape) count *= d;
  if (count != values.size()) throw FileFormatError(where_, "dataset '" + name + "': shape does not match its data");
  Scoped space{H5Screate_simple(int(shape.size()), shape.data(), nullptr), H5Sclose};
  Scoped properties{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  if (count > 0) {  // chunk along the first dimension, about 256 KiB a chunk
    std::vector<hsize_t> chunk(shape);
    const hsize_t row = count / std::max<hsize_t>(shape[0], 1);
    chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(shape[0], (hsize_t(1) << 16) / std::max<hsize_t>(row, 1)));
    H5Pset_chunk(properties.id, int(chunk.size()), chunk.data());
    H5Pset_shuffle(properties.id);
    H5Pset_deflate(properties.id, 4);
  }
  Scoped dataset{H5Dcreate2(id(), name.c_str(), memory_type<T>(), space.id, H5P_DEFAULT, properties.id, H5P_DEFAULT),
                 H5Dclose};
  if (dataset.id < 0 || H5Dwrite(dataset.id, memory_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw FileFormatError(where_, "cannot write dataset '" + name + "'");
}

template <class T>
Dataset<T> Group::read(const std::string& name) const {
  if (!contains(name)) throw FileFormatError(where_, "has no dataset '" + name + "'");
  Scoped dataset{H5Dopen2(id(), name.c_str(), H5P_DEFAULT), H5Dclose};
  if (dataset.id < 0) throw FileFormatError(where_, "'" + name + "' is not a dataset");
  Scoped type{H5Dget_type(dataset.id), H5Tclose};
  const H5T_class_t cls = H5Tget_class(type.id);
  const bool want_integer = std::is_integral<T>::value;
  if (cls != (want_integer ? H5T_INTEGER : H5T_FLOAT))
    throw FileFormatError(where_,
                          "dataset '" + name + "' must hold " + (want_integer ? "integers" : "floating-point numbers"));
  if (!standard_type(type.id))
    throw FileFormatError(where_, "dataset '" + name + "' has a non-standard " + (want_integer ? "integer" : "float") +
                                      " type (" + std::to_string(H5Tget_size(type.id)) + " bytes)");
  Scoped space{H5Dget_space(dataset.id), H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0) throw FileFormatError(where_, "dataset '" + name + "' has no simple shape");
  std::vector<hsize_t> shape(std::size_t(rank), 0), max_shape(std::size_t(rank), 0);
  H5Sget_simple_extent_dims(space.id, shape.data(), max_shape.data());
  // HDF5 1.10 copies a whole chunk of the declared shape out of a decompressed chunk that may be
  // smaller; a chunk beyond a fixed extent (which HDF5 never writes) is corrupt.
  Scoped create{H5Dget_create_plist(dataset.id), H5Pclose};
  if (H5Pget_layout(create.id) == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(std::size_t(rank), 0);
    if (H5Pget_chunk(create.id, rank, chunk.data()) != rank)
      throw FileFormatError(where_, "dataset '" + name + "' has a chunk shape of another rank (corrupt)");
    for (int i = 0; i < rank; ++i)
      if (max_shape[i] != H5S_UNLIMITED && chunk[i] > max_shape[i])
        throw FileFormatError(where_, "dataset '" + name + "' has chunks larger than its extent (corrupt)");
  }
  Dataset<T> result;
  hsize_t count = 1;
  for (hsize_t d : shape) {
    result.dims.push_back(d);
    count *= d;
  }
  // A corrupt header can declare a huge extent; refuse sizes no compression of the stored bytes
  // could explain (deflate expands at most about 1032:1) before allocating them.
  const double stored_bytes = double(H5Dget_storage_size(dataset.id));
  if (double(count) * double(sizeof(T)) > kMaxExpansion * stored_bytes + kUnstoredBytes)
    throw FileFormatError(where_, "dataset '" + name + "' declares " + std::to_string(count) + " elements but stores " +
                                      std::to_string(std::uint64_t(stored_bytes)) + " bytes (corrupt)");
  result.values.resize(count);
  if (count > 0 && H5Dread(dataset.id, memory_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, result.values.data()) < 0)
    throw FileFormatError(where_, "cannot read dataset '" + name + "' (corrupt or out of range)");
  return result;
}

template void Group::write<float>(const std::string&, const std::vector<float>&, const Dims&) const;
template void Group::write<double>(const std::string&, const std::vector<double>&, const Dims&) const;
template void Group::write<std::int32_t>(const std::string&, const std::vector<std::int32_t>&, const Dims&) const;
template Dataset<float> Group::read<float>(const std::string&) const;
template Dataset<double> Group::read<double>(const std::string&) const;
template Dataset<std::int32_t> Group::read<std::int32_t>(const std::string&) const;

File File::create(const std::string& path) {
  silence_hdf5();
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw FileFormatError(path, "cannot create the HDF5 file");
  return File(own(f, H5Fclose), path + ":/");
}

File File::open(const std::string& path) {
  silence_hdf5();
  if (!std::filesystem::is_regular_file(path)) throw FileFormatError(path, "no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw FileFormatError(path, "is not an HDF5 file");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw FileFormatError(path, "cannot open the HDF5 file");
  return File(own(f, H5Fclose), path + ":/");
}

void File::close() {
  if (handle_ && H5Fflush(id(), H5F_SCOPE_GLOBAL) < 0) throw FileFormatError(where_, "cannot flush");
  handle_.reset();
}

}  // namespace kattn::h5
