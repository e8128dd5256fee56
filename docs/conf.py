"""Sphinx configuration of the statmechlearn documentation site.

Build it with ``sphinx-build -W --keep-going -b html docs docs/_build/html``
(``make docs``): every warning is an error. The build is offline: nothing here
fetches from the network (no intersphinx inventories).
"""

import os
import sys
from pathlib import Path

import statmechlearn

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# The gallery and the docstrings draw figures without a display.
os.environ.setdefault("MPLBACKEND", "Agg")
# Make `src/` importable when the package is not installed (a plain checkout).
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

project = "statmechlearn"
author = "statmechlearn developers"
copyright = "statmechlearn developers, BSD-3-Clause"
version = statmechlearn.__version__
release = statmechlearn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
]
templates_path = ["_templates"]

# -- API reference ---------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
# a module page lists the names of its __all__, nothing it merely imports
autosummary_ignore_module_all = False
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
# numpydoc: no style validation (the docstrings follow numpydoc's layout; its
# validator's extra checks are not this project's rules), and class members are
# listed by autosummary rather than by numpydoc's member tables.
numpydoc_validation_checks = set()
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True
nitpicky = False

# Offline build: intersphinx is loaded but given no inventories, so it never
# fetches; add a mapping here only where the build machine can reach it.
intersphinx_mapping = {}

# -- Markdown pages (user guide and derivations) ----------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

# -- Example gallery ----------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # the API pages show the examples that use an object (``minigallery`` in
    # docs/_templates/autosummary/)
    "doc_module": ("statmechlearn",),
    "backreferences_dir": "generated/backreferences",
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    # an example that raises fails the build (after running all of them)
    "abort_on_example_error": False,
}

# -- HTML ---------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"statmechlearn {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 4,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path = []
html_show_sourcelink = False

# -- Reproduced at paper scale ---------------------------------------------------
# The page is built from the committed bundle (`statmechlearn publish` writes it from a
# store of full runs); each figure is marked with whether the current code still computes it.
PAPER_SCALE = DOCS / "paper_scale"
PAPER_SCALE_PAGE = DOCS / "generated" / "paper_scale.md"
_PAPER_SCALE_INTRO = """\
# Reproduced at paper scale

Every figure of the full reproduction — the papers' N and number of runs — with its
checks: the observed value ± its standard error over seeds, what it is compared with,
z, and the verdict. `make reproduce-full` computes them; `statmechlearn publish` writes
the bundle this page is built from (`docs/paper_scale/`). Each figure says the commit it
was computed at and whether its result key still matches the current code; a figure that
older code computed is marked stale, not hidden.

"""


def _write_paper_scale_page(app):
    from statmechlearn.experiments import bundle_page, bundle_status, read_bundle

    PAPER_SCALE_PAGE.parent.mkdir(parents=True, exist_ok=True)
    if (PAPER_SCALE / "bundle.json").exists():
        bundle = read_bundle(PAPER_SCALE)
        body = bundle_page(bundle, bundle_status(bundle), figures="../paper_scale/figures")
    else:
        body = "No bundle has been published yet (`statmechlearn publish` writes it).\n"
    text = _PAPER_SCALE_INTRO + body
    if not PAPER_SCALE_PAGE.exists() or PAPER_SCALE_PAGE.read_text(encoding="utf-8") != text:
        PAPER_SCALE_PAGE.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", _write_paper_scale_page)
