"""`ssdtwin calibrate`: a drive preset fitted to fio measurements of a real drive (docs/calibration.md)."""
