/* A shared library that is not a plugin: it lacks the query function. The
 * runtime must refuse it naming the file and the missing symbol. */
int graft_test_not_a_plugin(void);
int graft_test_not_a_plugin(void) { return 0; }
