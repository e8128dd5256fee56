"""scikit-learn's own estimator suite over every public estimator, at its default parameters.

A user meets the defaults, so that is what is checked: ``Est()`` as exported. The only
expected failures are checks whose generic data the estimator's input domain forbids,
and two whose own assumption does not hold for a clusterer (:data:`DOMAIN_EXCEPTIONS`);
they run strictly, so a check that starts to pass must leave the list, and every one is
listed with its reason in ``docs/architecture.md``.
"""

import inspect
import re
import warnings
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from conventions._discovery import public_estimators

_JOINT = (
    "X is a joint distribution p(x, y) (entries >= 0 summing to 1, or integer counts); "
    "the check feeds real-valued features"
)
_BINARY = "image is a binary image ({0, 1}, bool or +-1); the check feeds real values"
# scikit-learn's check_clustering fits raw (50, 2) features with negative entries
# whatever the input tags say
_RAW_FEATURES = "check_clustering feeds raw features, not {what}"
_MAP = (
    "a 5 x 5 map's labels are its 25 units, which tile the check's three blobs: the check "
    "scores them as three clusters and wants every unit used"
)


_SPARSE_CHECKS = ("check_estimator_sparse_array", "check_estimator_sparse_matrix")
_WIDTH = (
    "the sparse checks read the width of predict_proba from classifier tags; {what}, which "
    "no classifier tag describes (tests/conventions/test_input_types.py fits sparse input)"
)
_WEIGHT_CHECKS = (
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
)
_ONLINE_WEIGHTS = (
    "on-line updates: a weight scales a sample's step, so integer weights equal repeated rows "
    "to first order in the learning rate, not exactly (as scikit-learn's SGDClassifier)"
)

#: The checks that fit generic real-valued features.
_GENERIC_DATA = (
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_nan_inf",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
)

#: (estimator, check) -> why its input domain forbids the check's data.
DOMAIN_EXCEPTIONS = {
    "InformationBottleneck": dict.fromkeys(
        (
            *_GENERIC_DATA,
            *_SPARSE_CHECKS,
            "check_estimator_sparse_tag",
            "check_clustering",
            "check_non_transformer_estimators_n_iter",
        ),
        _JOINT,
    ),
    # a +-1 image has negative values, and is refused for not being binary, not for them
    "IsingDenoiser": dict.fromkeys((*_GENERIC_DATA, "check_positive_only_tag_during_fit"), _BINARY),
    "PairwiseClustering": {
        "check_clustering": _RAW_FEATURES.format(what="a square dissimilarity matrix")
    },
    "CorrelationClustering": {
        "check_clustering": _RAW_FEATURES.format(what="a square similarity matrix")
    },
    "HistogramClustering": {
        "check_clustering": _RAW_FEATURES.format(what="non-negative counts"),
        **dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="its default 8 clusters, 8 columns")),
    },
    "ParametricDistributionalClustering": {
        "check_clustering": _RAW_FEATURES.format(what="non-negative counts"),
        **dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="its clusters, one column each")),
        **dict.fromkeys(
            _WEIGHT_CHECKS,
            "split perturbations are drawn per row: repeated rows anneal along another path "
            "(the same partition, another cluster order and last digits)",
        ),
    },
    "KohonenSOM": {"check_clustering": _MAP, **dict.fromkeys(_WEIGHT_CHECKS, _ONLINE_WEIGHTS)},
    "TopologicalVQ": {
        "check_clustering": _MAP,
        **dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="a 5 x 5 map has 25 columns")),
    },
    "GibbsSamplerClustering": {
        **dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="8 clusters give 8 columns")),
        **dict.fromkeys(
            _WEIGHT_CHECKS,
            "a sampler: repeated rows change its random stream, so the two fits are draws "
            "of the same distribution, not the same draw",
        ),
    },
    "LeastAngleClustering": dict.fromkeys(
        _SPARSE_CHECKS, _WIDTH.format(what="the check's data leave one cluster, one column")
    ),
    "DeterministicAnnealing": dict.fromkeys(
        _SPARSE_CHECKS, _WIDTH.format(what="one column per code vector")
    ),
    "EqualWidthMixture": dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="one per component")),
    "EntropyConstrainedClustering": {
        **dict.fromkeys(_SPARSE_CHECKS, _WIDTH.format(what="one column per cluster")),
        **dict.fromkeys(
            _WEIGHT_CHECKS,
            "split perturbations are drawn per row: repeated rows anneal along another path",
        ),
    },
    "SparseBayesClassifierCV": dict.fromkeys(
        _WEIGHT_CHECKS,
        "the adaptive message passing stops at its tolerance on an update that depends on the "
        "row order at rounding level; the check shuffles the weighted rows, and a slowly "
        "converging grid point stops a few updates from the repeated fit's (probabilities "
        "differ by ~1e-7, the check's rtol)",
    ),
    **{
        name: dict.fromkeys(_WEIGHT_CHECKS, _ONLINE_WEIGHTS)
        for name in ("GLVQ", "LVQ1", "LVQ21", "LVQPlus", "VQ")
    },
}

DEFAULTS = [cls() for _, cls in public_estimators()]
_strict = (
    {"xfail_strict": True}
    if "xfail_strict" in inspect.signature(parametrize_with_checks).parameters
    else {}
)


def _expected_failures(estimator):
    return DOMAIN_EXCEPTIONS.get(type(estimator).__name__, {})


@parametrize_with_checks(DEFAULTS, expected_failed_checks=_expected_failures, **_strict)
def test_scikit_learn_suite_at_default_parameters(estimator, check):
    with warnings.catch_warnings():
        # a default schedule may stop short on the checks' tiny inputs; that is not tested here
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        check(estimator)


def test_every_domain_exception_is_documented_with_its_estimator():
    page = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text()
    section = page.split("### scikit-learn's suite at the defaults", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", section, re.M))
    assert set(rows) == set(DOMAIN_EXCEPTIONS)
    for name, checks in DOMAIN_EXCEPTIONS.items():
        if len(checks) > 3:  # the checks that fit generic data, counted
            assert f"{len(checks)} checks" in rows[name], name
        else:
            assert all(f"`{check}`" in rows[name] for check in checks), name
