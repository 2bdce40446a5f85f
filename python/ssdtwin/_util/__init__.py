"""The bottom layer of the package: helpers that know nothing of sweeps, reports or the command
line (atomic output files, the Python API's arguments, a drive's capacity). Nothing here imports
another part of ssdtwin except the native core, `ssdtwin._core`."""
