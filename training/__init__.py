"""Self-play training, evaluation against fixed opponents and shipping: ``python -m training``.

Training runs torch; a serving install (``pip install .``) has no torch, so this
package says what to install instead of failing deep inside an import. It only looks
for torch here: the processes that need none (distillation's target workers) do not pay
for importing it.
"""

from importlib.util import find_spec

if find_spec("torch") is None:  # a serving install
    raise ImportError("training needs torch and tensorboard: pip install torch==2.13.0 'nardy[train]'")
