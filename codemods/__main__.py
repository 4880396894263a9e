from codemods.launch import main

raise SystemExit(main())
