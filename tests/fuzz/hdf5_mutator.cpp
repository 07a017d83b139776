// fuzz_problem_file's mutator: edits the objects of an HDF5 file, not its bytes. Debian 12's
// libhdf5 1.10.8 is not memory-safe on corrupt files (a chunk that inflates to fewer bytes than
// its shape overruns a buffer inside H5Dread), so byte-level mutation finds libhdf5's bugs rather
// than kattn's. Every mutant is a well-formed file that libhdf5 itself wrote, with kattn content
// the reader must reject or accept: a dataset or attribute replaced by one of another type
// (including non-standard ones), shape, rank, layout or values; an object or attribute deleted;
// a case duplicated. libFuzzer's byte mutator still chooses the values.
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

struct Handle {  // closes an HDF5 id at scope exit
  hid_t id;
  herr_t (*close)(hid_t);
  Handle(hid_t id, herr_t (*close)(hid_t)) : id(id), close(close) {}
  Handle(const Handle&) = delete;
  ~Handle() {
    if (id >= 0) close(id);
  }
};

using Rng = std::minstd_rand;
std::size_t pick(Rng& rng, std::size_t n) { return std::size_t(rng() % n); }

hid_t in_memory() {  // a file access list for files that live only in memory
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, false);
  return fapl;
}

// The types a replacement may have: kattn's, other standard ones, and a 3-byte integer.
hid_t random_type(Rng& rng, Handle& owned) {
  switch (pick(rng, 8)) {
    case 0:
      return H5T_STD_I32LE;
    case 1:
      return H5T_STD_I64LE;
    case 2:
      return H5T_IEEE_F32LE;
    case 3:
      return H5T_IEEE_F64LE;
    case 4:
      return H5T_STD_U8LE;
    case 5:
      return H5T_IEEE_F32BE;
    case 6:
      owned.id = H5Tcopy(H5T_STD_I32LE);
      H5Tset_precision(owned.id, 24);
      H5Tset_size(owned.id, 3);
      return owned.id;
    default:
      owned.id = H5Tcopy(H5T_C_S1);
      H5Tset_size(owned.id, 1 + pick(rng, 16));
      return owned.id;
  }
}

// Values of `count` elements of `type` made from `old` (read in that type, converted by HDF5 if
// possible), sometimes mutated by libFuzzer.
std::vector<std::uint8_t> values(Rng& rng, std::vector<std::uint8_t> old, std::size_t count, hid_t type) {
  const std::size_t bytes = count * H5Tget_size(type);
  old.resize(bytes);
  if (bytes > 0 && pick(rng, 2)) LLVMFuzzerMutate(old.data(), bytes, bytes);
  return old;
}

void replace_dataset(Rng& rng, hid_t file, const std::string& path) {
  constexpr hssize_t kMaxValues = 1 << 16;  // larger datasets are left unwritten: fill values, no storage
  Handle owned(-1, H5Tclose);
  const hid_t type = random_type(rng, owned);
  std::vector<hsize_t> dims;
  std::vector<std::uint8_t> raw;  // the old values in the new type, where HDF5 converts them
  {
    Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
    Handle space(H5Dget_space(dataset.id), H5Sclose);
    dims.resize(std::size_t(std::max(0, H5Sget_simple_extent_ndims(space.id))));
    H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
    const hssize_t count = H5Sget_simple_extent_npoints(space.id);
    if (count > 0 && count <= kMaxValues) {
      raw.resize(std::size_t(count) * H5Tget_size(type));
      if (H5Dread(dataset.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0) raw.assign(raw.size(), 0);
    }
  }
  H5Ldelete(file, path.c_str(), H5P_DEFAULT);
  hsize_t* extent = dims.empty() ? nullptr : &dims[pick(rng, dims.size())];
  switch (pick(rng, 7)) {  // the shape: kept, an extent changed, the rank changed
    case 0:
      if (extent) *extent += 1;
      break;
    case 1:
      if (extent && *extent > 0) *extent -= 1;
      break;
    case 2:
      if (extent) *extent = 0;
      break;
    case 3:
      if (extent) *extent = hsize_t(1) << (17 + pick(rng, 24));
      break;
    case 4:
      dims.push_back(1);
      break;
    case 5:
      if (!dims.empty()) dims.pop_back();
      break;
  }
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  Handle space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
               H5Sclose);
  Handle create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const bool written = count > 0 && count <= hsize_t(kMaxValues);
  if (!dims.empty() && count > 0 && (!written || pick(rng, 2))) {  // chunked like kattn's writer, or contiguous
    std::vector<hsize_t> chunk(dims);
    for (hsize_t& c : chunk) c = std::min<hsize_t>(c, 64);
    H5Pset_chunk(create.id, int(chunk.size()), chunk.data());
    H5Pset_shuffle(create.id);
    H5Pset_deflate(create.id, 1);
  }
  Handle dataset(H5Dcreate2(file, path.c_str(), type, space.id, H5P_DEFAULT, create.id, H5P_DEFAULT), H5Dclose);
  if (written)
    H5Dwrite(dataset.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values(rng, raw, std::size_t(count), type).data());
}

const char* const kAttributes[] = {"schema",        "schema_version", "dtype",       "kv_dtype", "out_dtype",
                                   "softmax_scale", "causal",         "window_left", "softcap",  "alibi_origin",
                                   "k_scale",       "v_scale",        "out_scale",   "seed"};

void replace_attribute(Rng& rng, hid_t file, const std::string& object) {
  Handle target(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  H5O_info_t info;
  if (target.id < 0 || H5Oget_info(target.id, &info) < 0) return;
  std::string name = kAttributes[pick(rng, std::size(kAttributes))];
  if (info.num_attrs > 0 && pick(rng, 2)) {  // an attribute the object has, else one kattn reads
    const hsize_t index = pick(rng, info.num_attrs);
    const ssize_t length =
        H5Aget_name_by_idx(target.id, ".", H5_INDEX_NAME, H5_ITER_INC, index, nullptr, 0, H5P_DEFAULT);
    name.assign(std::size_t(std::max<ssize_t>(length, 0)), '\0');
    H5Aget_name_by_idx(target.id, ".", H5_INDEX_NAME, H5_ITER_INC, index, name.data(), name.size() + 1, H5P_DEFAULT);
  }
  Handle owned(-1, H5Tclose);
  const hid_t type = random_type(rng, owned);
  std::vector<std::uint8_t> raw(H5Tget_size(type));
  if (H5Aexists(target.id, name.c_str()) > 0) {
    Handle old(H5Aopen(target.id, name.c_str(), H5P_DEFAULT), H5Aclose);
    Handle old_type(H5Aget_type(old.id), H5Tclose);
    Handle old_space(H5Aget_space(old.id), H5Sclose);
    if (H5Tis_variable_str(old_type.id) <= 0 && H5Sget_simple_extent_npoints(old_space.id) == 1 &&
        H5Aread(old.id, type, raw.data()) < 0)
      raw.assign(raw.size(), 0);
  }
  H5Adelete(target.id, name.c_str());
  const hsize_t two = 2;
  const bool pair = pick(rng, 8) == 0;  // attributes kattn reads hold one value
  Handle space(pair ? H5Screate_simple(1, &two, nullptr) : H5Screate(H5S_SCALAR), H5Sclose);
  Handle attribute(H5Acreate2(target.id, name.c_str(), type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(attribute.id, type, values(rng, raw, pair ? 2 : 1, type).data());
}

herr_t collect(hid_t, const char* name, const H5L_info_t*, void* paths) {
  static_cast<std::vector<std::string>*>(paths)->push_back(std::string("/") + name);
  return 0;
}

herr_t copy_child(hid_t source, const char* name, const H5L_info_t*, void* destination) {
  H5Ocopy(source, name, *static_cast<hid_t*>(destination), name, H5P_DEFAULT, H5P_DEFAULT);
  return 0;
}

herr_t copy_attribute(hid_t source, const char* name, const H5A_info_t*, void* destination) {
  Handle attribute(H5Aopen(source, name, H5P_DEFAULT), H5Aclose);
  Handle type(H5Aget_type(attribute.id), H5Tclose);
  Handle space(H5Aget_space(attribute.id), H5Sclose);
  if (H5Tis_variable_str(type.id) > 0) return 0;  // the mutator writes none; seeds have none at the root
  std::vector<std::uint8_t> raw(std::size_t(std::max<hssize_t>(0, H5Sget_simple_extent_npoints(space.id))) *
                                H5Tget_size(type.id));
  H5Aread(attribute.id, type.id, raw.data());
  Handle copy(H5Acreate2(*static_cast<hid_t*>(destination), name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  H5Awrite(copy.id, type.id, raw.data());
  return 0;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned seed) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Rng rng(seed);
  Handle fapl(in_memory(), H5Pclose);
  Handle image_fapl(in_memory(), H5Pclose);
  H5Pset_file_image(image_fapl.id, data, size);
  Handle source(H5Fopen("kattn-fuzz-source", H5F_ACC_RDONLY, image_fapl.id), H5Fclose);
  if (source.id < 0) return size;  // not an HDF5 file: nothing to edit
  // A fresh copy is edited, so that space freed by earlier edits does not accumulate.
  Handle file(H5Fcreate("kattn-fuzz-mutant", H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id), H5Fclose);
  hid_t destination = file.id;
  H5Literate(source.id, H5_INDEX_NAME, H5_ITER_INC, nullptr, copy_child, &destination);
  H5Aiterate2(source.id, H5_INDEX_NAME, H5_ITER_INC, nullptr, copy_attribute, &destination);

  std::vector<std::string> paths;
  H5Lvisit(file.id, H5_INDEX_NAME, H5_ITER_INC, collect, &paths);
  const std::string path = paths.empty() ? "/" : paths[pick(rng, paths.size())];
  H5O_info_t info;
  const bool dataset =
      H5Oget_info_by_name(file.id, path.c_str(), &info, H5P_DEFAULT) >= 0 && info.type == H5O_TYPE_DATASET;
  switch (pick(rng, 8)) {
    case 0:
      H5Ldelete(file.id, path.c_str(), H5P_DEFAULT);
      break;
    case 1:
      H5Ocopy(file.id, path.c_str(), file.id, (path + "-copy").c_str(), H5P_DEFAULT, H5P_DEFAULT);
      break;
    case 2:
      replace_attribute(rng, file.id, "/");
      break;
    case 3:
    case 4:
      replace_attribute(rng, file.id, path);
      break;
    default:
      if (dataset)
        replace_dataset(rng, file.id, path);
      else
        replace_attribute(rng, file.id, path);
  }
  H5Fflush(file.id, H5F_SCOPE_GLOBAL);
  const ssize_t bytes = H5Fget_file_image(file.id, nullptr, 0);
  if (bytes <= 0 || std::size_t(bytes) > max_size) return size;
  H5Fget_file_image(file.id, data, std::size_t(bytes));
  return std::size_t(bytes);
}
