"""`ssdtwin calibrate`: a drive preset fitted to fio measurements of a real drive
(docs/calibration.md). Between the command line and the report in the layers: it reads fio's
JSON as `ssdtwin.report.fio` writes it, and runs the core itself.

    protocol.py  the fio job file of the measurement protocol, and its job-name scheme
    measure.py   fio JSON output: the measured figures of the protocol's jobs; CalibrationError
    params.py    the fitted parameters, their keys and units, the base preset, the preset file
    simulate.py  the measured jobs simulated at candidate drives, from snapshots, in threads
    fit.py       the staged fit (scipy.optimize.least_squares, a discrete search), uncertainty
    run.py       a calibration from files to preset; pages.py its text and HTML report
"""
