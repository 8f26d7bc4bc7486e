"""need_torch.py — what the torch tools do before importing torch: exit with
one line naming the tool, the interpreter and the Debian packages to install
when PyTorch is missing, instead of a traceback."""
import sys


def need_torch(tool):
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("%s: PyTorch is not installed for %s (apt-get install python3-torch "
                 "python3-torchvision)" % (tool, sys.executable))
