"""Self-play training, evaluation against fixed opponents and shipping: ``python -m training``.

Training runs torch; a serving install (``pip install .``) has no torch, so this
package says what to install instead of failing deep inside an import.
"""

try:
    import torch  # noqa: F401
except ImportError as missing:  # a serving install
    raise ImportError("training needs torch and tensorboard: pip install torch==2.13.0 'nardy[train]'") from missing
