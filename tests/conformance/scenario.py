"""What a scenario is, the registry the scenario modules fill, and the names they share: the
open-flag shorthands and the reasons for expected differences that several areas give.

A scenario is a function t_<name>(c) decorated with @sc(); it runs once on the native copy
and once on the view with a harness.Ctx. The run order (and the order of --list) is the
order of SCENARIO_MODULES, then the order of definition inside each module: keep it stable,
so that two runs' outputs can be compared line by line."""

import importlib
import os

SCENARIOS = []

RD, WR, RW = os.O_RDONLY, os.O_WRONLY, os.O_RDWR
CR, EX, TR, AP = os.O_CREAT, os.O_EXCL, os.O_TRUNC, os.O_APPEND

# Expected differences given by more than one scenario (docs/conformance.md lists them all).
XFAIL_MERGED_DIR_NLINK = (
    "a directory merging the real tree and the workspace reports nlink 1 (its true count is "
    "unknown without listing both layers), as kernel overlayfs does; find and fts treat 1 as "
    "unknown")
XFAIL_LOWER_HARDLINKS_SPLIT = (
    "known limitation: two names of one real-tree file come apart when one is first written "
    "(copy-up copies one name), as in kernel overlayfs without index=on; docs/filesystem.md")
XFAIL_DEVICE_NODES = (
    "the view is mounted nodev: a device node made in it (by root, outside ws run) never "
    "opens (EACCES), as on any nodev mount, so it gives no one access it would not have; by "
    "design")

SCENARIO_MODULES = (
    "scenarios_open",
    "scenarios_read_write",
    "scenarios_unlink_rmdir_mkdir",
    "scenarios_rename",
    "scenarios_links",
    "scenarios_metadata",
    "scenarios_dirs",
    "scenarios_special",
    "scenarios_xattr",
    "scenarios_fsync_sparse",
    "scenarios_mmap",
    "scenarios_deleted_open",
    "scenarios_names",
    "scenarios_races",
    "scenarios_cross_area",
    "scenarios_times",
    "scenarios_exec",
    "scenarios_stat_identity",
)


class Scenario:
    def __init__(self, name, fn, xfail=None, extra=None):
        self.name, self.fn, self.xfail, self.extra = name, fn, xfail, extra


def sc(xfail=None, extra=None):
    """Registers t_<name> as scenario <name>. xfail: why the view is expected to differ (the
    scenario then reports XFAIL, not FAIL). extra: fn(dir) adding lower files to its seed."""
    def deco(fn):
        SCENARIOS.append(Scenario(fn.__name__.removeprefix("t_"), fn, xfail, extra))
        return fn
    return deco


def load_all():
    """Imports every scenario module once, in run order, and returns the registry."""
    for name in SCENARIO_MODULES:
        importlib.import_module(name)
    return SCENARIOS
