from codemods.cli import main

raise SystemExit(main())
