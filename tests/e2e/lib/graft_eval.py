"""graft eval for the e2e scripts that check the reference evaluator
against numpy (data_movement_numpy.py, pad_tile_numpy.py,
window_ops_numpy.py): inputs saved as .npy, graft eval run on a graph file
or on generated graph text, results loaded back; a failing run ends the
script with graft's output."""
import subprocess
import sys

import numpy as np


class GraftEval:
    def __init__(self, graft, work):
        self.graft = graft
        self.work = work

    def run(self, args):
        """graft eval ARGS; exits with its output if it fails."""
        p = subprocess.run([self.graft, "eval"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            sys.exit("graft eval failed: %s\n%s" % (" ".join(args), p.stdout))

    def evaluate(self, graph_path, inputs, function=None, results=1):
        """The results of |function| (the first one when None) of the graph
        at |graph_path| on |inputs|: one array, or a list of |results|."""
        args = [graph_path] + (["--function", function] if function else [])
        for k, a in enumerate(inputs):
            path = "%s/in%d.npy" % (self.work, k)
            np.save(path, a)
            args += ["--input", "@" + path]
        outs = ["%s/out%d.npy" % (self.work, k) for k in range(results)]
        for out in outs:
            args += ["--output", "@" + out]
        self.run(args)
        got = [np.load(out) for out in outs]
        return got[0] if results == 1 else got

    def evaluate_text(self, text, inputs, results=1):
        """The same for graph |text|, written to WORK/case.graph (shown
        with the failure when graft eval fails)."""
        path = "%s/case.graph" % self.work
        with open(path, "w") as f:
            f.write(text)
        try:
            return self.evaluate(path, inputs, results=results)
        except SystemExit as e:
            sys.exit("%s\n%s" % (e, text))


def same(got, want, what):
    """Exits naming |what| unless got and want have the same shape and values."""
    if got.shape != want.shape or not np.array_equal(got, want):
        sys.exit("%s: graft %s %s, numpy %s %s" % (what, got.shape, got, want.shape, want))


def lst(v):
    """A graph-language list of integers: [1, 2, 3]."""
    return "[" + ", ".join(str(int(x)) for x in v) + "]"
