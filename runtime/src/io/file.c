/* Bounded reads of the files graft is handed (bundles, .npy and raw tensor
 * files). A read never runs until memory is exhausted: only regular files
 * are read (a FIFO, device or socket has no size to bound it, and
 * /dev/zero never ends), their size comes from fstat before anything is
 * allocated, callers compare it with what they expect (a shape, a maximum)
 * and no more than that many bytes are ever read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"

static const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

graft_status_t graft_io_file_open(const char* path, graft_io_file_t* out) {
  out->fd = -1;
  out->size = 0;
  out->path = path;
  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return graft_status_make(GRAFT_NOT_FOUND, "cannot open '%s': %s", path,
                             strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    graft_status_t status = graft_status_make(
        GRAFT_DATA_LOSS, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    return status;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "cannot read '%s': it is %s; graft reads only "
                             "regular files",
                             path, file_kind(st.st_mode));
  }
  out->fd = fd;
  out->size = (uint64_t)st.st_size;
  return NULL;
}

graft_status_t graft_io_file_read(const graft_io_file_t* file, uint64_t offset,
                                  void* dst, size_t size) {
  uint8_t* p = dst;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(file->fd, p + done, size - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return graft_status_make(GRAFT_DATA_LOSS, "cannot read '%s': %s",
                               file->path, strerror(errno));
    if (n == 0)
      return graft_status_make(GRAFT_DATA_LOSS,
                               "cannot read '%s': it ended after %llu bytes "
                               "(it shrank while being read)",
                               file->path,
                               (unsigned long long)(offset + done));
    done += (size_t)n;
  }
  return NULL;
}

void graft_io_file_close(graft_io_file_t* file) {
  if (file->fd >= 0) close(file->fd);
  file->fd = -1;
}

graft_status_t graft_io_read_file(const char* path, uint64_t max_size,
                                  uint8_t** out_data, size_t* out_size) {
  *out_data = NULL;
  *out_size = 0;
  graft_io_file_t file;
  graft_status_t status = graft_io_file_open(path, &file);
  if (status) return status;
  if (file.size > max_size || file.size > SIZE_MAX) {
    status = graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "cannot read '%s': it has %llu bytes, more "
                               "than the maximum of %llu",
                               path, (unsigned long long)file.size,
                               (unsigned long long)max_size);
  }
  uint8_t* data = NULL;
  if (!status) {
    data = malloc(file.size ? (size_t)file.size : 1);
    if (!data)
      status = graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                                 "cannot read '%s': out of memory for %llu "
                                 "bytes",
                                 path, (unsigned long long)file.size);
  }
  if (!status) status = graft_io_file_read(&file, 0, data, (size_t)file.size);
  graft_io_file_close(&file);
  if (status) {
    free(data);
    return status;
  }
  *out_data = data;
  *out_size = (size_t)file.size;
  return NULL;
}
