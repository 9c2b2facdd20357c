"""The package list for setuptools (everything else is in pyproject.toml).

templates/ and static/ live at the top of the checkout (the app runs from it as they
are); the wheel carries them as ``scorer/templates`` and ``scorer/static``, where
:mod:`scorer.resources` finds them in an installed package.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["scorer", "scorer.*"]), "scorer.templates", "scorer.static"],
    package_dir={"scorer.templates": "templates", "scorer.static": "static"},
)
