from attncli.entry import main

main()
