/* Replays inputs through a fuzzer's LLVMFuzzerTestOneInput without
 * libFuzzer, so that CI runs every seed and every crash ever found
 * (tests/fuzz/crashes/<fuzzer>/) on each build, cheaply, with whatever
 * sanitizers that build has:
 *
 *   fuzz_loader_replay tests/fuzz/corpus/fuzz_loader tests/fuzz/crashes/fuzz_loader
 *
 * Each argument is a file or a directory of files. A crash crashes this
 * program (the test fails); no input at all is an error too, so that a
 * renamed directory cannot make the test pass by replaying nothing. */
#define _POSIX_C_SOURCE 200809L
/* 64-bit inode numbers and offsets on 32-bit hosts too: without it,
 * readdir fails with EOVERFLOW on filesystems with large inode numbers
 * (32-bit Arm under qemu-user on a 64-bit host). */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int replay_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open '%s'\n", path);
    return 0;
  }
  size_t capacity = 4096, size = 0;
  uint8_t* data = malloc(capacity);
  size_t n;
  while (data && (n = fread(data + size, 1, capacity - size, f)) > 0) {
    size += n;
    if (size == capacity) {
      uint8_t* grown = realloc(data, capacity *= 2);
      if (!grown) free(data);
      data = grown;
    }
  }
  fclose(f);
  if (!data) {
    fprintf(stderr, "replay: out of memory reading '%s'\n", path);
    return 0;
  }
  /* libFuzzer hands over a copy it owns; a heap copy of exactly |size|
   * bytes lets ASan see reads past the end. */
  uint8_t* exact = malloc(size ? size : 1);
  if (exact) {
    memcpy(exact, data, size);
    LLVMFuzzerTestOneInput(exact, size);
  }
  free(exact);
  free(data);
  return exact != NULL;
}

static int replay_path(const char* path, int* count) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: no such file or directory '%s'\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) {
    *count += 1;
    return replay_file(path);
  }
  DIR* dir = opendir(path);
  if (!dir) return 0;
  int ok = 1;
  struct dirent* e;
  while (ok && (errno = 0, e = readdir(dir))) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
    char child[4096];
    snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
    ok = replay_path(child, count);
  }
  if (ok && errno != 0) {
    fprintf(stderr, "replay: cannot read directory '%s': %s\n", path,
            strerror(errno));
    ok = 0;
  }
  closedir(dir);
  return ok;
}

int main(int argc, char** argv) {
  int count = 0;
  for (int i = 1; i < argc; ++i)
    if (!replay_path(argv[i], &count)) return 1;
  if (count == 0) {
    fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  printf("replayed %d inputs\n", count);
  return 0;
}
