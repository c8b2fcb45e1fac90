from regtile.tools import interleave


def test_sizes_from_the_command_line_or_the_default():
    assert interleave.sizes_from(["4096", "--dry", "8192"]) == [4096, 8192]
    assert interleave.sizes_from(["--dry"], (4096,)) == [4096]
    assert interleave.sizes_from([]) == [4096, 8192]
