"""The form of the audit pages (audit.py): a hand file to audit on its own.

Beside its routes by the package's rule (scorer/web/__init__.py): a blueprint ``x.py`` keeps its
form classes in ``x_forms.py``. The version form the audit's rulings post is shared with the
history's, so it lives in forms.py.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField

from .forms import Form, TextBox


class HandFileForm(Form):
    """Upload a ``scarto-hand/1`` file or paste a record."""

    file = FileField(_l("Hand file (scarto-hand/1 JSON)"))
    text = TextBox(_l("…or paste the record"))
