#!/usr/bin/env python3
"""The property benchmark on real-ladybug, kuzu's maintained fork (PyPI
package `ladybug`, imported as `ladybug`; the LadybugDB graph database,
not the Blender plug-in or the weather-data `ladybug-*` packages). The
same Cypher driver as kuzu_props.py; ladybug plans parameters as
primary-key look-ups, so ids are parameters here."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kuzu_props  # noqa: E402

if __name__ == "__main__":
    kuzu_props.main("ladybug", inline_ids=False)
