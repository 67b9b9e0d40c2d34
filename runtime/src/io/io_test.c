/* Tests of the tensor text form, status type and .npy files.
 *
 *   graft_io_test                      run the built-in cases
 *   graft_io_test print FILE_OR_TEXT   parse and print (used by
 *                                      npy_numpy_test.py)
 *   graft_io_test write TEXT FILE.npy  parse TEXT and write it as .npy */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graft/tensor.h"
#include "io/io_internal.h"
#include "io/test_harness.h"

#ifndef GRAFT_IO_TESTDATA
#define GRAFT_IO_TESTDATA "testdata"
#endif

/* Parses |text| and prints it back; returns malloc'd text or NULL. */
static char* round_trip(const char* text) {
  graft_tensor_t t;
  graft_status_t s = graft_tensor_parse(text, &t);
  if (s) {
    printf("  parse '%s': %s\n", text, graft_status_message(s));
    graft_status_free(s);
    return NULL;
  }
  char* out = NULL;
  s = graft_tensor_format(&t, &out);
  if (s) {
    printf("  format '%s': %s\n", text, graft_status_message(s));
    graft_status_free(s);
  }
  graft_tensor_release(&t);
  return out;
}

#define EXPECT_PRINTS(text, expected)   \
  do {                                  \
    char* out_ = round_trip(text);      \
    EXPECT_STR(out_, expected);         \
    free(out_);                         \
  } while (0)

static graft_status_t parse_only(const char* text) {
  graft_tensor_t t;
  graft_status_t s = graft_tensor_parse(text, &t);
  graft_tensor_release(&t);
  return s;
}

static void parse_mlp_inputs(void) {
  EXPECT_PRINTS("2x2xf32=[[2 2][-2 -2]]", "2x2xf32=[2 2][-2 -2]");
  EXPECT_PRINTS("2x2xf32=[3 -3][3 -3]", "2x2xf32=[3 -3][3 -3]");
  EXPECT_PRINTS("2x2xf32=[2 2 -2 -2]", "2x2xf32=[2 2][-2 -2]");
  EXPECT_PRINTS("2x2xf32=2,2,-2,-2", "2x2xf32=[2 2][-2 -2]");
  EXPECT_PRINTS("  2x2xf32=[[2, 2], [-2, -2]]\n", "2x2xf32=[2 2][-2 -2]");
}

static void print_ranks(void) {
  EXPECT_PRINTS("4xf32=1 2 3 4", "4xf32=1 2 3 4");
  EXPECT_PRINTS("2x2x2xi32=1 2 3 4 5 6 7 8",
                "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
  EXPECT_PRINTS("f32=1.5", "f32=1.5");
  EXPECT_PRINTS("i32=-3", "i32=-3");
  EXPECT_PRINTS("0xf32=", "0xf32=");
  EXPECT_PRINTS("2x0xf32=[][]", "2x0xf32=[][]");
  EXPECT_PRINTS("2x3x0xi8=", "2x3x0xi8=[[][][]][[][][]]");
  /* Found by fuzz_tensor: the brackets of a huge empty tensor took forever
   * (terabytes of "[]"); past 65536 rows they are left out. */
  EXPECT_PRINTS("1000000000000x0xf32=", "1000000000000x0xf32=");
  EXPECT_PRINTS("65537x0xf32=", "65537x0xf32=");
  EXPECT_PRINTS("1x1x1xf64=7", "1x1x1xf64=[[7]]");
}

static void splat(void) {
  EXPECT_PRINTS("8xf32=2", "8xf32=2 2 2 2 2 2 2 2");
  EXPECT_PRINTS("2x3xi8=-1", "2x3xi8=[-1 -1 -1][-1 -1 -1]");
}

static void float_forms(void) {
  EXPECT_PRINTS("6xf32=0 -12 0.5 1e10 inf -inf",
                "6xf32=0 -12 0.5 1e+10 inf -inf");
  /* negative zero prints as "0", as in IREE's outputs */
  EXPECT_PRINTS("2xf32=nan -0", "2xf32=nan 0");
  EXPECT_PRINTS("f64=0.1", "f64=0.1");
  EXPECT_PRINTS("3xf16=1.5 -2 65504", "3xf16=1.5 -2 65504");
  EXPECT_PRINTS("f16=1e6", "f16=inf");
  EXPECT_PRINTS("2xbf16=1.5 -3", "2xbf16=1.5 -3");
  EXPECT_PRINTS("f16=5.96046e-08", "f16=5.96046e-08"); /* smallest subnormal */
}

static void integer_forms(void) {
  EXPECT_PRINTS("3xi1=true false 1", "3xi1=1 0 1");
  EXPECT_PRINTS("2xi8=-128 127", "2xi8=-128 127");
  EXPECT_PRINTS("2xi16=-32768 32767", "2xi16=-32768 32767");
  EXPECT_PRINTS("i64=-9223372036854775808", "i64=-9223372036854775808");
  EXPECT_PRINTS("i64=9007199254740993", "i64=9007199254740993");
}

static void parse_errors(void) {
  EXPECT_ERROR(parse_only("2x2xf32=[1 2 3]"), "expected 4 elements, found 3");
  /* A huge mistyped shape is refused before anything is allocated. */
  EXPECT_ERROR(parse_only("4000000000000xf32=[1 2]"),
               "expected 4000000000000 elements, found 2");
  EXPECT_ERROR(parse_only("2xf32=1 2 3"), "expected 2 elements, found 3");
  EXPECT_ERROR(parse_only("2x2xf33=1"), "unknown element type 'f33' at column 5");
  EXPECT_ERROR(parse_only("2xf32=1 q"), "invalid f32 value 'q' at column 9");
  EXPECT_ERROR(parse_only("2xi8=1 300"), "value '300' at column 8 is out of range for i8");
  EXPECT_ERROR(parse_only("i32=1.5"), "invalid i32 value '1.5' at column 5");
  EXPECT_ERROR(parse_only("i1=2"), "out of range for i1");
  EXPECT_ERROR(parse_only("f32=0x10"), "invalid f32 value '0x10'");
  EXPECT_ERROR(parse_only("f32=infinity"), "invalid f32 value 'infinity'");
  EXPECT_ERROR(parse_only("2x2xf32=[[1 2][3 4]"), "missing ']' for the '[' at column 9");
  EXPECT_ERROR(parse_only("2xf32=1 2]"), "unbalanced ']' at column 10");
  EXPECT_ERROR(parse_only("2xf32"), "expected '=' followed by elements after '2xf32'");
  EXPECT_ERROR(parse_only("2x?xf32=1"), "unknown element type '?xf32'");
  EXPECT_ERROR(parse_only("2xx=1"), "unknown element type 'x' at column 3");
  EXPECT_ERROR(parse_only("2x=1"), "missing element type at column 3");
  EXPECT_ERROR(parse_only("1x1x1x1x1x1x1x1x1xf32=1"), "rank exceeds the maximum of 8");
  EXPECT_ERROR(parse_only(""), "empty tensor text");
  EXPECT_PRINTS("index=7", "index=7");
  EXPECT_ERROR(parse_only("4xf32=[]"), "expected 4 elements, found 0");
  EXPECT_ERROR(parse_only("@/nonexistent/x.npy"),
               "cannot open '/nonexistent/x.npy': No such file or directory");
}

static void raw_file(void) {
  const char* path = "graft_io_test_raw.bin";
  float values[4] = {1, -2, 3.5f, 0};
  FILE* f = fopen(path, "wb");
  EXPECT(f != NULL);
  if (!f) return;
  fwrite(values, sizeof(values), 1, f);
  fclose(f);
  EXPECT_PRINTS("2x2xf32=@graft_io_test_raw.bin", "2x2xf32=[1 -2][3.5 0]");
  EXPECT_ERROR(parse_only("3xf32=@graft_io_test_raw.bin"),
               "'graft_io_test_raw.bin' has 16 bytes, expected 12");
  remove(path);
}

static void npy_round_trip_case(const char* text) {
  const char* path = "graft_io_test_rt.npy";
  graft_tensor_t t, back;
  EXPECT_OK(graft_tensor_parse(text, &t));
  EXPECT_OK(graft_tensor_write_npy(path, &t));
  EXPECT_OK(graft_tensor_read_npy(path, &back));
  EXPECT(back.dtype == t.dtype && back.rank == t.rank && back.size == t.size);
  EXPECT(back.size == t.size && memcmp(back.data, t.data, t.size) == 0);
  graft_tensor_release(&t);
  graft_tensor_release(&back);
  remove(path);
}

static void npy_round_trip(void) {
  npy_round_trip_case("2x3xf32=1 2 3 4 5 6");
  npy_round_trip_case("f64=2.5");
  npy_round_trip_case("5xi64=1 -2 3 -4 5");
  npy_round_trip_case("2x2xi1=1 0 0 1");
  npy_round_trip_case("3xi8=-1 0 1");
  npy_round_trip_case("0x4xf16=");
}

static void write_bytes(const char* path, const void* data, size_t size) {
  FILE* f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, size, f);
  fclose(f);
}

/* Writes a .npy with the given header dict (padded) and |data_size| bytes. */
static void write_npy_with_header(const char* path, const char* dict,
                                  size_t data_size) {
  char buf[256] = {0};
  size_t n = strlen(dict);
  size_t header_len = ((n + 11 + 63) / 64) * 64 - 10;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (char)header_len;
  buf[9] = 0;
  memcpy(buf + 10, dict, n);
  memset(buf + 10 + n, ' ', header_len - n - 1);
  buf[10 + header_len - 1] = '\n';
  memset(buf + 10 + header_len, 0, data_size);
  write_bytes(path, buf, 10 + header_len + data_size);
}

/* A file written by numpy and checked in, so the reader is tested even
 * where python is missing (e.g. under qemu). */
static void npy_checked_in(void) {
  graft_tensor_t t;
  graft_status_t s = graft_tensor_read_npy(GRAFT_IO_TESTDATA "/mlp_lhs.npy", &t);
  EXPECT(s == NULL);
  graft_status_free(s);
  if (s) return;
  char* text = NULL;
  EXPECT_OK(graft_tensor_format(&t, &text));
  EXPECT_STR(text, "2x2xf32=[2 2][-2 -2]");
  free(text);
  graft_tensor_release(&t);
}

static void npy_errors(void) {
  const char* path = "graft_io_test_bad.npy";
  graft_tensor_t t;
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "fortran_order arrays are not supported");
  write_npy_with_header(path, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "unsupported .npy dtype '>f4'");
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "expected 8 data bytes, found 4");
  /* A header claiming petabytes is rejected by its size, before any
   * allocation (which used to be attempted, and zeroed, first). */
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (1125899906842624,), }", 4);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "expected 4503599627370496 data bytes, found 4");
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "expected more than 2^64 data bytes, found 0");
  /* An empty array with huge other dims is still just empty. */
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4, 0), }", 0);
  EXPECT_OK(graft_tensor_read_npy(path, &t));
  graft_tensor_release(&t);
  write_npy_with_header(path, "{'descr': '<f4', 'shape': (2,), }", 8);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), ".npy header lacks 'fortran_order'");
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "unexpected or repeated .npy header key 'x'");
  write_npy_with_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,) junk}", 8);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "malformed .npy header");
  write_bytes(path, "hello world", 11);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "is not a .npy file (bad magic)");
  write_bytes(path, "\x93NUMPY\x01\x00\xff\x00{", 11);
  EXPECT_ERROR(graft_tensor_read_npy(path, &t), "truncated .npy header");
  graft_tensor_t bf;
  EXPECT_OK(graft_tensor_parse("bf16=1", &bf));
  EXPECT_ERROR(graft_tensor_write_npy(path, &bf), "bf16 has no .npy dtype");
  graft_tensor_release(&bf);
  remove(path);
}

/* `--input 2x3xf32=@/dev/zero` and `@/dev/zero` read until memory ran out
 * (issue 11, defect 4). Only regular files are read, and never more than
 * what is expected: the shape, the .npy header, a maximum. */
static void bounded_reads(void) {
  const char* device = "cannot read '/dev/zero': it is a character device; "
                       "graft reads only regular files";
  EXPECT_ERROR(parse_only("2x3xf32=@/dev/zero"), device);
  EXPECT_ERROR(parse_only("@/dev/zero"), device);
  const char* fifo = "graft_io_test.fifo";
  remove(fifo);
  EXPECT(mkfifo(fifo, 0600) == 0);
  EXPECT_ERROR(parse_only("@graft_io_test.fifo"),
               "cannot read 'graft_io_test.fifo': it is a FIFO or pipe");
  EXPECT_ERROR(parse_only("4xf32=@graft_io_test.fifo"), "it is a FIFO or pipe");
  remove(fifo);
  EXPECT_ERROR(parse_only("@."), "cannot read '.': it is a directory");

  /* The file's size is compared with the shape before allocating. */
  const char* path = "graft_io_test_bounded.bin";
  float values[4] = {1, 2, 3, 4};
  write_bytes(path, values, sizeof(values));
  EXPECT_ERROR(parse_only("1000000000x1000000xf32=@graft_io_test_bounded.bin"),
               "'graft_io_test_bounded.bin' has 16 bytes, expected "
               "4000000000000000");
  uint8_t* data = NULL;
  size_t size = 0;
  EXPECT_ERROR(graft_io_read_file(path, 8, &data, &size),
               "cannot read 'graft_io_test_bounded.bin': it has 16 bytes, more "
               "than the maximum of 8");
  EXPECT_OK(graft_io_read_file(path, 16, &data, &size));
  EXPECT(size == 16 && data && memcmp(data, values, 16) == 0);
  free(data);

  /* A .npy header is read only up to its documented maximum. */
  write_bytes(path, "\x93NUMPY\x02\x00\x00\x00\x00\x01{", 13);
  graft_tensor_t t;
  EXPECT_ERROR(graft_tensor_read_npy(path, &t),
               "'graft_io_test_bounded.bin': .npy header of 16777216 bytes is "
               "larger than the maximum of 65536");
  remove(path);
}

static void status_basics(void) {
  EXPECT(graft_status_make(GRAFT_OK, "x") == NULL);
  EXPECT(graft_status_code(NULL) == GRAFT_OK);
  EXPECT_STR(graft_status_message(NULL), "");
  graft_status_t s = graft_status_make(GRAFT_NOT_FOUND, "no function '%s'", "f");
  s = graft_status_annotate(s, "in %s", "m.graft");
  EXPECT(graft_status_code(s) == GRAFT_NOT_FOUND);
  EXPECT_STR(graft_status_message(s), "in m.graft: no function 'f'");
  EXPECT_STR(graft_status_code_name(graft_status_code(s)), "NOT_FOUND");
  graft_status_free(s);
  EXPECT(graft_status_annotate(NULL, "x") == NULL);
}

/* Small tensors come from the heap, large ones (>= 2 MiB) are mapped pages:
 * both are zeroed, 64-byte aligned, writable in full and released by
 * graft_tensor_release, including sizes that are no multiple of a page. */
static void allocate_sizes(void) {
  const int64_t counts[] = {0, 1, 17, (1 << 19) - 1, 1 << 19, (1 << 19) + 3,
                            (3 << 20) + 5};
  for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
    graft_tensor_t t;
    EXPECT_OK(graft_tensor_allocate(GRAFT_DTYPE_F32, 1, &counts[i], &t));
    EXPECT(t.owned && ((uintptr_t)t.data & 63) == 0);
    EXPECT(t.size == (uint64_t)counts[i] * 4);
    const unsigned char* bytes = t.data;
    uint64_t nonzero = 0;
    for (uint64_t b = 0; b < t.size; ++b) nonzero += bytes[b] != 0;
    EXPECT(nonzero == 0);
    if (t.size) memset(t.data, 0xa5, (size_t)t.size);
    graft_tensor_release(&t);
    EXPECT(t.data == NULL && !t.owned);
  }
}

static int tool_main(int argc, char** argv) {
  graft_tensor_t t;
  graft_status_t s = NULL;
  if (argc == 3 && strcmp(argv[1], "print") == 0) {
    s = graft_tensor_parse(argv[2], &t);
    char* text = NULL;
    if (!s) s = graft_tensor_format(&t, &text);
    if (!s) printf("%s\n", text);
    free(text);
    graft_tensor_release(&t);
  } else if (argc == 4 && strcmp(argv[1], "write") == 0) {
    s = graft_tensor_parse(argv[2], &t);
    if (!s) s = graft_tensor_write_npy(argv[3], &t);
    graft_tensor_release(&t);
  } else {
    fprintf(stderr, "usage: graft_io_test [print TEXT | write TEXT FILE]\n");
    return 2;
  }
  if (s) {
    fprintf(stderr, "error: %s\n", graft_status_message(s));
    graft_status_free(s);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) return tool_main(argc, argv);
  TEST_CASE(parse_mlp_inputs);
  TEST_CASE(print_ranks);
  TEST_CASE(splat);
  TEST_CASE(float_forms);
  TEST_CASE(integer_forms);
  TEST_CASE(parse_errors);
  TEST_CASE(raw_file);
  TEST_CASE(npy_round_trip);
  TEST_CASE(npy_checked_in);
  TEST_CASE(npy_errors);
  TEST_CASE(bounded_reads);
  TEST_CASE(status_basics);
  TEST_CASE(allocate_sizes);
  return graft_test_finish();
}
