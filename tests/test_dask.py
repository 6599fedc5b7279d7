"""Gradient objects on a Dask cluster: `client.map(g, parameter_sets)` over the process
workers of a `distributed.LocalCluster` gives each parameter set the gradient that central
finite differences give, and a worker that finds a function's sweeps in the cache
directory another worker filled (`SRCAD_CACHE_DIR`, shared) loads them: it neither
transforms the function nor has Numba compile it again.

One cluster serves the module: two worker processes of one thread each, whose functions
come from tests/dask_functions.py (importable by the workers, as on a real cluster), and a
fresh cache directory of their own. Skipped when `distributed` is not installed
(`pip install srcad[dask]`)."""
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import srcad  # noqa: E402
from tests import dask_functions as fns  # noqa: E402
from tests.fd import assert_grad_close, fd_grad  # noqa: E402

XS = np.linspace(-1.0, 1.0, 6)
WS = [0.3, 0.7, 1.1, -0.4]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A client of a local cluster of two worker processes that share a new cache dir."""
    cache = tmp_path_factory.mktemp("dask_cache")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0",  # any free port: several may run
                                       env={"SRCAD_CACHE_DIR": str(cache)})
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _fd_jacobian(u, k):
    return np.array([fd_grad(lambda u, k: fns.field(u, k)[i], (u, k), 0)
                     for i in range(u.shape[0])])


def _fd_hessian(w, xs):
    """Central differences of the reverse-mode gradient (the Hessian is forward mode over
    the reverse sweep)."""
    g = srcad.grad(fns.loss, wrt=1, jit=False)
    return np.array([fd_grad(lambda xs, w: g(w, xs)[i], (xs, w), 0)
                     for i in range(xs.shape[0])])


CASES = {
    "grad": (lambda: srcad.grad(fns.loss, wrt=(0, 1)),
             [(w, XS) for w in WS],
             lambda w, xs: fd_grad(fns.loss, (w, xs), (0, 1))),
    "value_and_grad": (lambda: srcad.value_and_grad(fns.loss, jit=False),
                       [(w, XS) for w in WS],
                       lambda w, xs: (fns.loss(w, xs), fd_grad(fns.loss, (w, xs), 0))),
    "jacobian": (lambda: srcad.jacobian(fns.field, jit=False),
                 [(w * XS, 1.5) for w in WS],
                 _fd_jacobian),
    "hessian": (lambda: srcad.hessian(fns.loss, wrt=1, jit=False),
                [(w, XS) for w in WS],
                _fd_hessian),
}


@pytest.mark.parametrize("name", list(CASES))
def test_client_map_gives_each_parameter_set_its_derivative(client, name):
    make, parameter_sets, want = CASES[name]
    g = make()
    got = client.gather(client.map(g, *zip(*parameter_sets)))
    for args, result in zip(parameter_sets, got):
        assert_grad_close(result, want(*args), rtol=1e-5, atol=1e-7)


def test_the_readme_example_fits_from_several_starting_points(client):
    ts = np.linspace(0.0, 3.0, 20)
    ys = 2.0 * np.exp(-1.5 * ts)
    starts = [np.array([a, b]) for a in (0.5, 1.0, 2.0) for b in (0.5, 1.0, 2.0)]
    g = srcad.value_and_grad(fns.decay_cost)
    costs_and_grads = client.gather(client.map(g, starts, ts=ts, ys=ys))
    for p, result in zip(starts, costs_and_grads):
        want = (fns.decay_cost(p, ts, ys), fd_grad(fns.decay_cost, (p, ts, ys), 0))
        assert_grad_close(result, want)


def test_a_worker_loads_the_sweeps_another_worker_compiled(client):
    args = (np.cumsum(np.linspace(0.8, 1.3, 12)), 0.5)
    g = srcad.grad(fns.chain_energy)
    first, second = sorted(client.scheduler_info()["workers"])
    cold = client.submit(fns.first_call, g, *args, workers=[first], pure=False).result()
    warm = client.submit(fns.first_call, g, *args, workers=[second], pure=False).result()
    assert cold["pid"] != warm["pid"] and cold["cache_dir"] == warm["cache_dir"]
    assert cold["transformed"] == 1 and cold["numba_compiled"] == 2, cold
    assert cold["numba_loaded"] == 0, cold
    assert warm["transformed"] == 0 and warm["numba_compiled"] == 0, warm
    assert warm["numba_loaded"] == 2, warm
    want = fd_grad(fns.chain_energy, args, 0)
    for run in (cold, warm):
        assert_grad_close(run["result"], want)
    print(f"first call: {cold['seconds']:.2f} s with an empty cache directory, "
          f"{warm['seconds']:.2f} s on a worker that found the sweeps there")
