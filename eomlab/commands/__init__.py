"""One module per `eomlab` subcommand: `add_parser(subparsers)` and `main(args) -> int`."""
