// A small RAII layer over the HDF5 C API: groups, attributes and whole-dataset read/write.
// Every failure throws FileFormatError naming the file and object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kattn::h5 {

using Dims = std::vector<std::uint64_t>;

template <class T>
struct Dataset {
  Dims dims;
  std::vector<T> values;
};

class Group {
 public:
  Group create_group(const std::string& name) const;
  Group open_group(const std::string& name) const;
  bool contains(const std::string& name) const;
  std::vector<std::string> children() const;  // in creation/name order

  void write_attribute(const std::string& name, double value) const;
  void write_attribute(const std::string& name, std::int64_t value) const;
  void write_attribute(const std::string& name, const std::string& value) const;
  bool has_attribute(const std::string& name) const;
  double read_double(const std::string& name) const;
  std::int64_t read_int(const std::string& name) const;
  std::string read_string(const std::string& name) const;

  // Datasets of float, double or int32; written gzip-compressed in chunks.
  template <class T>
  void write(const std::string& name, const std::vector<T>& values, const Dims& dims) const;
  template <class T>
  Dataset<T> read(const std::string& name) const;

  const std::string& where() const { return where_; }

 protected:
  Group(std::shared_ptr<const void> handle, std::string where) : handle_(std::move(handle)), where_(std::move(where)) {}
  std::int64_t id() const;

  std::shared_ptr<const void> handle_;  // owns the hid_t (stored as int64 behind the pointer)
  std::string where_;                   // "file.h5:/cases/x" for messages
};

class File : public Group {
 public:
  static File create(const std::string& path);  // truncates
  static File open(const std::string& path);    // read-only
  void close();                                 // flushes; later use throws

 private:
  using Group::Group;
};

}  // namespace kattn::h5
